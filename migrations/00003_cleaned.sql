-- Article text and metadata, written by the cleaner, read by the extractor,
-- the embedder and search.

-- +goose Up
CREATE TABLE cleaned (
    doc_id        text PRIMARY KEY,
    content_hash  text NOT NULL,            -- hash of the raw body it was cleaned from
    text_hash     text NOT NULL,            -- hash of the normalized text (exact duplicates)
    simhash       bigint NOT NULL DEFAULT 0,-- 64-bit SimHash of word shingles (near duplicates)
    url           text NOT NULL,
    canonical_url text NOT NULL DEFAULT '',
    host          text NOT NULL DEFAULT '',
    title         text NOT NULL DEFAULT '',
    text          text NOT NULL DEFAULT '',
    description   text NOT NULL DEFAULT '',
    site_name     text NOT NULL DEFAULT '',
    language      text NOT NULL DEFAULT '',
    authors       text[] NOT NULL DEFAULT '{}',
    published_at  timestamptz,
    modified_at   timestamptz,
    top_image     text NOT NULL DEFAULT '',
    section       text NOT NULL DEFAULT '',
    tags          text[] NOT NULL DEFAULT '{}',
    is_article    boolean NOT NULL DEFAULT false,
    page_kind     text NOT NULL DEFAULT '',
    word_count    int NOT NULL DEFAULT 0,
    duplicate_of  text,                     -- first-seen doc_id with the same or nearly the same text
    first_seen_at timestamptz NOT NULL DEFAULT now(), -- when the crawler first saw the URL: decides which copy is the original
    cleaned_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX cleaned_text_hash ON cleaned (text_hash);
CREATE INDEX cleaned_published ON cleaned (published_at);
CREATE INDEX cleaned_host ON cleaned (host);

-- SimHash bands: four 16-bit bands; two fingerprints within Hamming distance 3
-- share at least one band exactly, so candidates come from an index, not a scan.
CREATE TABLE simhash_bands (
    band    smallint NOT NULL,
    value   int      NOT NULL,
    doc_id  text     NOT NULL,
    PRIMARY KEY (band, value, doc_id)
);

-- +goose Down
DROP TABLE simhash_bands;
DROP TABLE cleaned;
