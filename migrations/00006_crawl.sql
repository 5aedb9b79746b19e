-- The crawler's frontier and seen-set: one row per normalized URL ever
-- discovered or fetched, with its state, validators and recrawl schedule.

-- +goose Up
CREATE TABLE urls (
    url              text PRIMARY KEY,            -- normalized URL
    doc_id           text NOT NULL,               -- pipeline.DocID(url)
    host             text NOT NULL,               -- host[:port]
    state            text NOT NULL DEFAULT 'queued',
        -- queued, fetched, unchanged, not_modified, gone, disallowed, too_large,
        -- skipped (content type / kind), redirect_error, client_error, blocked, alias
    depth            int  NOT NULL DEFAULT 0,
    max_depth        int  NOT NULL DEFAULT 0,
    hosts            text[] NOT NULL DEFAULT '{}', -- allowed hosts of the crawl it belongs to
    is_seed          boolean NOT NULL DEFAULT false,
    is_hub           boolean NOT NULL DEFAULT false, -- feed, sitemap or seed page: recrawled
    kind             text NOT NULL DEFAULT '',     -- html, feed, sitemap, other
    status           int  NOT NULL DEFAULT 0,
    final_url        text NOT NULL DEFAULT '',
    content_type     text NOT NULL DEFAULT '',
    content_hash     text NOT NULL DEFAULT '',
    etag             text NOT NULL DEFAULT '',
    last_modified    text NOT NULL DEFAULT '',
    error            text NOT NULL DEFAULT '',
    discovered_from  text NOT NULL DEFAULT '',
    recrawl_interval interval,                     -- hubs: how often to fetch again
    next_crawl_at    timestamptz,                  -- hubs: when the scheduler re-enqueues it
    fetch_count      int  NOT NULL DEFAULT 0,
    first_seen_at    timestamptz NOT NULL DEFAULT now(),
    fetched_at       timestamptz,
    updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX urls_due ON urls (next_crawl_at) WHERE is_hub AND next_crawl_at IS NOT NULL;
CREATE INDEX urls_host_state ON urls (host, state);
CREATE INDEX urls_doc_id ON urls (doc_id);

-- +goose Down
DROP TABLE urls;
