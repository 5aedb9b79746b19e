-- The one rule for "is this document searchable?": an article that is not a
-- copy of an earlier one. PostgreSQL computes it from the cleaner's columns
-- (cleaned is owned by the cleaner), so no package restates it: the
-- extractor and embedder skip rows that are not searchable, search and the
-- web page show them, stats and reconcile count them.

-- +goose Up
ALTER TABLE cleaned ADD COLUMN searchable boolean
    GENERATED ALWAYS AS (is_article AND coalesce(duplicate_of, '') = '') STORED;
CREATE INDEX cleaned_searchable_published ON cleaned (published_at) WHERE searchable;

-- +goose Down
DROP INDEX cleaned_searchable_published;
ALTER TABLE cleaned DROP COLUMN searchable;
