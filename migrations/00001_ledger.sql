-- The idempotency ledger of pkg/streamkit: one row per finished unit of work.

-- +goose Up
CREATE EXTENSION IF NOT EXISTS vector SCHEMA public;

CREATE TABLE stage_results (
    key      text PRIMARY KEY,            -- stage:doc_id:content_hash[:version]
    stage    text NOT NULL,
    doc_id   text NOT NULL DEFAULT '',
    emitted  json,                        -- downstream messages, re-sent when a finished key is redelivered
    done_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX stage_results_stage_doc ON stage_results (stage, doc_id);

-- +goose Down
DROP TABLE stage_results;
