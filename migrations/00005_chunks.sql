-- Chunks of cleaned articles with their embeddings, written by the embedder
-- and read by search. A document has, per embedding model and dimension, the
-- chunks of one content_hash at a time: a changed document replaces them.

-- +goose Up
-- chunk_tsconfig maps a cleaned.language code to the text-search
-- configuration its chunks are indexed with ('simple' when unknown).
-- internal/search lists the same configurations for the query side.
-- +goose StatementBegin
CREATE FUNCTION chunk_tsconfig(lang text) RETURNS regconfig
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE lower(split_part(coalesce(lang, ''), '-', 1))
    WHEN 'en' THEN 'english'::regconfig
    WHEN 'de' THEN 'german'::regconfig
    WHEN 'fr' THEN 'french'::regconfig
    WHEN 'es' THEN 'spanish'::regconfig
    WHEN 'it' THEN 'italian'::regconfig
    WHEN 'pt' THEN 'portuguese'::regconfig
    WHEN 'nl' THEN 'dutch'::regconfig
    WHEN 'sv' THEN 'swedish'::regconfig
    WHEN 'da' THEN 'danish'::regconfig
    WHEN 'no' THEN 'norwegian'::regconfig
    WHEN 'nb' THEN 'norwegian'::regconfig
    WHEN 'fi' THEN 'finnish'::regconfig
    WHEN 'ru' THEN 'russian'::regconfig
    WHEN 'tr' THEN 'turkish'::regconfig
    WHEN 'hu' THEN 'hungarian'::regconfig
    WHEN 'ro' THEN 'romanian'::regconfig
    ELSE 'simple'::regconfig
  END
$$;
-- +goose StatementEnd

CREATE TABLE chunks (
    doc_id        text NOT NULL,
    model         text NOT NULL,            -- embedding model identity (embed.Identity.Model)
    dims          int  NOT NULL,            -- vector length
    chunk_index   int  NOT NULL,            -- position in the article, from 0
    content_hash  text NOT NULL,            -- cleaned.content_hash the chunks were made from
    char_start    int  NOT NULL,            -- offsets of the body in cleaned.text, in characters
    char_end      int  NOT NULL,
    title         text NOT NULL DEFAULT '', -- the article title (prefixed to the embedded input)
    text          text NOT NULL,            -- the chunk body
    host          text NOT NULL DEFAULT '', -- filter columns copied from cleaned
    language      text NOT NULL DEFAULT '',
    published_at  timestamptz,
    embedding     vector NOT NULL,          -- any dimension: models coexist; indexes cast per model
    tsv           tsvector GENERATED ALWAYS AS (
                      setweight(to_tsvector(chunk_tsconfig(language), title), 'A') ||
                      setweight(to_tsvector(chunk_tsconfig(language), text), 'B')) STORED,
    embedded_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (model, dims, doc_id, chunk_index),
    CHECK (vector_dims(embedding) = dims)
);
-- Keep vectors in the row (compressed never, moved out only as a last
-- resort): TOASTed 768-d vectors make inserts and exact scans much slower.
ALTER TABLE chunks ALTER COLUMN embedding SET STORAGE MAIN;

CREATE INDEX chunks_model_host      ON chunks (model, dims, host);
CREATE INDEX chunks_model_published ON chunks (model, dims, published_at);
CREATE INDEX chunks_model_language  ON chunks (model, dims, language);
CREATE INDEX chunks_tsv             ON chunks USING gin (tsv);

-- The default local embedder's ANN index. Other models get theirs from
-- the embedder at start-up (embed.EnsureModel): one partial expression
-- index per model and dimension, halfvec from 512 dimensions up.
CREATE INDEX chunks_hnsw_local_hash_v1_384 ON chunks
    USING hnsw ((embedding::vector(384)) vector_cosine_ops) WITH (m = 16, ef_construction = 64)
    WHERE model = 'local-hash-v1' AND dims = 384;

-- Every model and dimension some embedder has written with.
CREATE TABLE embed_models (
    model       text NOT NULL,
    dims        int  NOT NULL,
    provider    text NOT NULL DEFAULT '',
    index_name  text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (model, dims)
);

-- +goose Down
DROP TABLE embed_models;
DROP TABLE chunks;
DROP FUNCTION chunk_tsconfig(text);
