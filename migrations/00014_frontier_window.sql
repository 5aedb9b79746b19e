-- The frontier is the crawl's buffer and the crawl stream a window onto it
-- (issue 13): a URL owed a fetch carries the nonce of that fetch's request
-- until a crawler has handled it; published_at says whether the request is
-- on the stream yet. The feeder publishes the owed, unpublished ones while
-- the stream has room. Owned by the crawler (internal/crawl).

-- +goose Up
ALTER TABLE urls
    ADD COLUMN pending_nonce text,                   -- a request is owed with this nonce
    ADD COLUMN published_at  timestamptz,            -- when it went onto the crawl stream
    ADD COLUMN hint          text NOT NULL DEFAULT '', -- feed or sitemap, as the link said
    ADD COLUMN hubs          int  NOT NULL DEFAULT 0;  -- hubs in a row that led here
-- Queued links of earlier releases were published when found, with the
-- nonce crawl.LinkNonce derives from the page and the link.
UPDATE urls SET published_at = now(),
    pending_nonce = 'l' || substr(encode(sha256(convert_to(discovered_from, 'UTF8') || '\x00'::bytea || convert_to(url, 'UTF8')), 'hex'), 1, 16)
WHERE state = 'queued';
CREATE INDEX urls_unpublished ON urls (depth, first_seen_at) WHERE pending_nonce IS NOT NULL AND published_at IS NULL;

-- +goose Down
DROP INDEX urls_unpublished;
ALTER TABLE urls DROP COLUMN pending_nonce, DROP COLUMN published_at, DROP COLUMN hint, DROP COLUMN hubs;
