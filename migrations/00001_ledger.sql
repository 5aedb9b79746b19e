-- pgvector, for the chunks table. (This migration also created
-- pkg/streamkit's ledger, stage_results, until streamkit shipped its own
-- schema: store.Migrate runs streamkit.Migrate before these migrations, and
-- on a database migrated before, the table it finds is the same.)

-- +goose Up
CREATE EXTENSION IF NOT EXISTS vector SCHEMA public;

-- +goose Down
SELECT 1;
