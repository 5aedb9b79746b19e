-- Keys of chunks that keep the planner on the right index when its
-- statistics are stale. With the primary key and the filter indexes all
-- starting with (model, dims), a lookup by document of a model the
-- statistics do not know yet (a first load, a new model) was estimated at
-- one row on every one of them, and the planner could pick a filter index
-- and scan all of the model's chunks: the embedder's per-document DELETE
-- grew with the table (0.1 ms → 1 ms over the first 8,000 chunks).
--
-- Now only the primary key starts with doc_id, the filter indexes start
-- with their filter column, and the one index on (model, dims) is partial
-- on chunk_index = 0, so only a query that says so (search's "does this
-- model have chunks" check) can use it.
--
-- The primary key and indexes are rebuilt inside the migration's
-- transaction: chunks is locked (searches and writes wait) while they are.
--
-- The local model's HNSW index is rebuilt with ef_construction 128 (was
-- 64), as embed.IndexSQL now builds every model's: on the benchmark's 100k
-- clustered vectors recall@10 stopped at about 0.98-0.99 however large
-- ef_search was, and reaches 0.992-0.998 at ef_search 100 with the better
-- graph. Only while the model has few chunks (an index rebuilt here would
-- lock chunks for as long as the build takes); a larger one is left to
-- `newsctl index build`, which rebuilds it concurrently, and search keeps
-- ef_search 200 for indexes built with 64. An index an operator dropped
-- (a backfill in progress) is not created here.

-- +goose Up
ALTER TABLE chunks DROP CONSTRAINT chunks_pkey;
ALTER TABLE chunks ADD PRIMARY KEY (doc_id, model, dims, chunk_index);

DROP INDEX chunks_model_host;
DROP INDEX chunks_model_published;
DROP INDEX chunks_model_language;
CREATE INDEX chunks_host      ON chunks (host, model, dims);
CREATE INDEX chunks_published ON chunks (published_at, model, dims);
CREATE INDEX chunks_language  ON chunks (language, model, dims);
CREATE INDEX chunks_models    ON chunks (model, dims) WHERE chunk_index = 0;

-- +goose StatementBegin
DO $$
BEGIN
  IF to_regclass('chunks_hnsw_local_hash_v1_384') IS NOT NULL AND (SELECT count(*) FROM
      (SELECT 1 FROM chunks WHERE model = 'local-hash-v1' AND dims = 384 LIMIT 20001) few) <= 20000 THEN
    DROP INDEX chunks_hnsw_local_hash_v1_384;
    CREATE INDEX chunks_hnsw_local_hash_v1_384 ON chunks
        USING hnsw ((embedding::vector(384)) vector_cosine_ops) WITH (m = 16, ef_construction = 128)
        WHERE model = 'local-hash-v1' AND dims = 384;
  END IF;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- The local model's index keeps whatever parameters it has: both work.
DROP INDEX chunks_models;
DROP INDEX chunks_language;
DROP INDEX chunks_published;
DROP INDEX chunks_host;
CREATE INDEX chunks_model_host      ON chunks (model, dims, host);
CREATE INDEX chunks_model_published ON chunks (model, dims, published_at);
CREATE INDEX chunks_model_language  ON chunks (model, dims, language);

ALTER TABLE chunks DROP CONSTRAINT chunks_pkey;
ALTER TABLE chunks ADD PRIMARY KEY (model, dims, doc_id, chunk_index);
