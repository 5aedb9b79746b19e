-- Rendered pages: the DOM headless Chromium built from a stored page whose
-- story only script puts in place (internal/render), kept beside the static
-- body. Written by the crawl stage's store alone (internal/crawl), the owner
-- of documents; a row belongs to the body it was rendered from (body_hash),
-- so a page fetched again with another body is rendered again, never cleaned
-- from a stale DOM.
-- Additive: the release before neither reads nor writes it.

-- +goose Up
CREATE TABLE rendered (
    doc_id        text PRIMARY KEY REFERENCES documents (doc_id) ON DELETE CASCADE,
    body_hash     text NOT NULL,               -- documents.body_hash of the static page rendered
    rendered_hash text NOT NULL DEFAULT '',    -- BodyHash of the rendered DOM; '' when the render failed
    body          bytea,                       -- the rendered DOM (outerHTML, UTF-8); NULL when it failed
    error         text NOT NULL DEFAULT '',    -- why the last tries failed: the static page stands
    tries         int NOT NULL DEFAULT 0,      -- renders tried for this body
    requests      int NOT NULL DEFAULT 0,      -- requests the browser made (the last try)
    refused       int NOT NULL DEFAULT 0,      -- of them refused: guard, robots, scope, kind, cap
    bytes         bigint NOT NULL DEFAULT 0,   -- bytes fetched (the last try)
    took_ms       int NOT NULL DEFAULT 0,      -- the last try's wall time, politeness waits included
    rendered_at   timestamptz NOT NULL DEFAULT now()
);

-- +goose StatementBegin
DO $$
BEGIN
    ALTER TABLE rendered ALTER COLUMN body SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'this server has no lz4: rendered pages stay compressed with pglz';
END $$;
-- +goose StatementEnd

-- +goose Down
DROP TABLE rendered;
