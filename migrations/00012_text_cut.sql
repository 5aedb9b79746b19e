-- A cleaned text longer than CLEAN_MAX_TEXT_CHARS is cut at a paragraph
-- break; text_cut_from records how many characters it had (0: not cut).
-- Owned by the cleaner.

-- +goose Up
ALTER TABLE cleaned ADD COLUMN text_cut_from int NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE cleaned DROP COLUMN text_cut_from;
