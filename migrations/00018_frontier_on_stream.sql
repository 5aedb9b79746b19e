-- The feeder gives each host a share of the crawl window: it counts, per
-- host, the requests on the crawl stream (owed and published, not yet
-- handled), and takes each host's next owed requests by walking the hosts
-- that have some. Both indexes are built CONCURRENTLY, so crawlers of this
-- and the previous release keep writing the frontier while they build.
-- Additive: the release before does not use them.

-- +goose NO TRANSACTION
-- +goose Up
CREATE INDEX CONCURRENTLY IF NOT EXISTS urls_on_stream ON urls (host, published_at)
    WHERE pending_nonce IS NOT NULL AND published_at IS NOT NULL;
CREATE INDEX CONCURRENTLY IF NOT EXISTS urls_owed_by_host ON urls (host, depth, first_seen_at)
    WHERE pending_nonce IS NOT NULL AND published_at IS NULL;

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS urls_owed_by_host;
DROP INDEX CONCURRENTLY IF EXISTS urls_on_stream;
