-- Structured extractions, written by the extractor (internal/extract).
-- One row per (document version, provider, model, prompt and schema version):
-- a new model or prompt adds a row instead of overwriting or being blocked.

-- +goose Up
CREATE TABLE extractions (
    doc_id          text NOT NULL,
    content_hash    text NOT NULL,            -- the extract message's content_hash (cleaned text)
    provider        text NOT NULL,            -- openai | heuristic
    model           text NOT NULL,            -- model name, or the heuristic's revision
    prompt_version  int  NOT NULL,
    schema_version  int  NOT NULL,
    mode            text NOT NULL DEFAULT '', -- json_schema | json_object | text | heuristic
    data            jsonb NOT NULL,           -- the extraction, valid against the schema version
    title           text,
    language        text,
    published_at    timestamptz,
    sentiment       text,
    topics          text[] NOT NULL DEFAULT '{}',
    people          text[] NOT NULL DEFAULT '{}',
    organizations   text[] NOT NULL DEFAULT '{}',
    locations       text[] NOT NULL DEFAULT '{}',
    input_chars     int  NOT NULL DEFAULT 0,  -- characters sent after the budget cut
    input_truncated boolean NOT NULL DEFAULT false,
    repaired        boolean NOT NULL DEFAULT false,
    dropped         int  NOT NULL DEFAULT 0,  -- entities/quotes dropped as not found in the article
    requests        int  NOT NULL DEFAULT 0,
    latency_ms      int  NOT NULL DEFAULT 0,
    input_tokens    int  NOT NULL DEFAULT 0,  -- from the server's usage; 0 when unknown
    output_tokens   int  NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (doc_id, content_hash, provider, model, prompt_version, schema_version)
);
CREATE INDEX extractions_doc_created ON extractions (doc_id, created_at DESC);
CREATE INDEX extractions_topics ON extractions USING gin (topics);
CREATE INDEX extractions_people ON extractions USING gin (people);
CREATE INDEX extractions_organizations ON extractions USING gin (organizations);
CREATE INDEX extractions_locations ON extractions USING gin (locations);

-- The newest extraction of each document, whatever produced it.
CREATE VIEW latest_extractions AS
    SELECT DISTINCT ON (doc_id) *
    FROM extractions
    ORDER BY doc_id, created_at DESC, (provider <> 'heuristic') DESC;

-- +goose Down
DROP VIEW latest_extractions;
DROP TABLE extractions;
