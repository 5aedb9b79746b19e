-- Raw fetches, written by the crawler and read by the cleaner.

-- +goose Up
CREATE TABLE documents (
    doc_id        text PRIMARY KEY,          -- pipeline.DocID(normalized URL)
    url           text NOT NULL,             -- normalized URL
    final_url     text NOT NULL DEFAULT '',  -- after redirects
    host          text NOT NULL DEFAULT '',
    status        int  NOT NULL DEFAULT 0,
    content_type  text NOT NULL DEFAULT '',
    kind          text NOT NULL DEFAULT '',  -- html, feed, sitemap
    charset       text NOT NULL DEFAULT '',  -- detected source charset; body is UTF-8
    body          bytea,
    content_hash  text NOT NULL DEFAULT '',  -- pipeline.ContentHash(body)
    etag          text NOT NULL DEFAULT '',
    last_modified text NOT NULL DEFAULT '',
    headers       jsonb,
    first_seen_at timestamptz NOT NULL DEFAULT now(),
    fetched_at    timestamptz
);
CREATE INDEX documents_host ON documents (host);

-- +goose Down
DROP TABLE documents;
