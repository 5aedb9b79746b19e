-- A document's copies, for its web page: cleaned rows whose duplicate_of names
-- it (cleaned is owned by the cleaner).

-- +goose Up
CREATE INDEX cleaned_duplicate_of ON cleaned (duplicate_of) WHERE duplicate_of IS NOT NULL;

-- +goose Down
DROP INDEX cleaned_duplicate_of;
