-- One name per hash. The pipeline keeps two hashes of a document, and both
-- used to be called content_hash:
--   body_hash  SHA-256 of the fetched body (pipeline.BodyHash): documents,
--              urls (the last fetch's), cleaned (the body it was cleaned
--              from) and chunks (the cleaned row's body_hash they were
--              made from, as before);
--   text_hash  SHA-256 of the normalised article text (pipeline.TextHash):
--              cleaned (already so named) and extractions (the text the
--              extraction was made from).
-- Only the names change: every value, and so every ledger key built from
-- one, stays as it was. latest_extractions is a SELECT * view, whose
-- columns keep the names they had when it was made: it is made again.

-- +goose Up
ALTER TABLE documents   RENAME COLUMN content_hash TO body_hash;
ALTER TABLE urls        RENAME COLUMN content_hash TO body_hash;
ALTER TABLE cleaned     RENAME COLUMN content_hash TO body_hash;
ALTER TABLE chunks      RENAME COLUMN content_hash TO body_hash;
ALTER TABLE extractions RENAME COLUMN content_hash TO text_hash;

DROP VIEW latest_extractions;
CREATE VIEW latest_extractions AS
    SELECT DISTINCT ON (doc_id) *
    FROM extractions
    ORDER BY doc_id, created_at DESC, (provider <> 'heuristic') DESC;

-- +goose Down
ALTER TABLE extractions RENAME COLUMN text_hash TO content_hash;
ALTER TABLE chunks      RENAME COLUMN body_hash TO content_hash;
ALTER TABLE cleaned     RENAME COLUMN body_hash TO content_hash;
ALTER TABLE urls        RENAME COLUMN body_hash TO content_hash;
ALTER TABLE documents   RENAME COLUMN body_hash TO content_hash;

DROP VIEW latest_extractions;
CREATE VIEW latest_extractions AS
    SELECT DISTINCT ON (doc_id) *
    FROM extractions
    ORDER BY doc_id, created_at DESC, (provider <> 'heuristic') DESC;
