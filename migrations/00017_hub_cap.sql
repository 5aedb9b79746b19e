-- Discovered hubs (feeds, sitemaps, indexes) per host, for
-- CRAWL_MAX_HUBS_PER_HOST, and what each cap dropped, for newsctl stats.
-- Counted like urls: after each commit, outside its transaction. Hubs are
-- counted from this migration on: no backfill, which would scan the whole
-- frontier while holding crawl_hosts' lock against running crawlers.
-- Additive: the release before ignores the new columns (it inserts host and
-- urls only, and the defaults fill the rest).

-- +goose Up
ALTER TABLE crawl_hosts
    ADD COLUMN hubs bigint NOT NULL DEFAULT 0,
    ADD COLUMN urls_dropped bigint NOT NULL DEFAULT 0,
    ADD COLUMN hubs_dropped bigint NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE crawl_hosts DROP COLUMN hubs, DROP COLUMN urls_dropped, DROP COLUMN hubs_dropped;
