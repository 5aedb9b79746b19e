-- The cleaner flags an article whose publisher marks it for subscribers
-- (JSON-LD isAccessibleForFree false, a locked content tier): its text is
-- what the page served, maybe a teaser. Search shows the flag; it does not
-- decide searchability.

-- +goose Up
ALTER TABLE cleaned ADD COLUMN paywalled boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE cleaned DROP COLUMN paywalled;
