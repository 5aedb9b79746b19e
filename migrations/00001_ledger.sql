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
-- No secondary index: every lookup is by key, and each index costs every commit.

-- +goose Down
DROP TABLE stage_results;
