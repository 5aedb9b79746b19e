-- Extractions that are partial (optional fields dropped as invalid) or a
-- fallback (the heuristic's, stored because the model failed for the
-- document), and the model answers kept until their extraction is committed
-- so that a retry never pays for the same answer twice. Owned by the
-- extractor (internal/extract).

-- +goose Up
ALTER TABLE extractions
    ADD COLUMN invalid_fields  text[] NOT NULL DEFAULT '{}', -- "field: why" of each optional field left empty
    ADD COLUMN fallback_for    text,                         -- provider/model that failed, for a fallback row
    ADD COLUMN fallback_reason text;                         -- why it failed

DROP VIEW latest_extractions;
CREATE VIEW latest_extractions AS
    SELECT DISTINCT ON (doc_id) *
    FROM extractions
    ORDER BY doc_id, created_at DESC, (provider <> 'heuristic') DESC;

CREATE TABLE extract_answers (
    key        text PRIMARY KEY,          -- the extract stage's idempotency key
    output     jsonb NOT NULL,            -- the accepted answer and how it was obtained
    created_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE extract_answers;
DROP VIEW latest_extractions;
ALTER TABLE extractions DROP COLUMN invalid_fields, DROP COLUMN fallback_for, DROP COLUMN fallback_reason;
CREATE VIEW latest_extractions AS
    SELECT DISTINCT ON (doc_id) *
    FROM extractions
    ORDER BY doc_id, created_at DESC, (provider <> 'heuristic') DESC;
