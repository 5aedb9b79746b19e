-- The feeder counts, per host, the requests on the crawl stream (owed and
-- published, not yet handled) so that no host holds more of the window than
-- its turns need; this index keeps that count to the window's rows.
-- Additive: the release before does not use it.

-- +goose Up
CREATE INDEX urls_on_stream ON urls (host) WHERE pending_nonce IS NOT NULL AND published_at IS NOT NULL;

-- +goose Down
DROP INDEX urls_on_stream;
