-- Web archives: where each stored page's capture lives in a WARC file
-- (an archive it was ingested from, or the file the crawler wrote it to),
-- and the ingest checkpoints, one row per source.
-- Additive: the release before ignores the new columns (their defaults fill
-- them for what it stores) and never reads ingest_sources.

-- +goose Up
ALTER TABLE documents
    ADD COLUMN origin         text NOT NULL DEFAULT 'crawl', -- crawl, archive
    ADD COLUMN warc_file      text NOT NULL DEFAULT '',      -- the source ingested from, or the file written
    ADD COLUMN warc_offset    bigint,                        -- the record's (gzip member's) offset in it
    ADD COLUMN warc_length    bigint,                        -- and its length there
    ADD COLUMN warc_record_id text NOT NULL DEFAULT '',
    ADD COLUMN warc_date      timestamptz,                   -- the capture time (WARC-Date)
    ADD COLUMN warc_truncated text NOT NULL DEFAULT '';      -- WARC-Truncated: why the body is cut

-- Written by newsctl ingest alone (internal/ingest).
CREATE TABLE ingest_sources (
    source       text PRIMARY KEY,              -- a file path or a URL, as given
    size         bigint,                        -- bytes, when known
    resume_at    bigint NOT NULL DEFAULT 0,     -- records before it are stored and sent on
    stored_to    bigint NOT NULL DEFAULT 0,     -- records before it are stored; their messages may not be sent
    seekable     boolean NOT NULL DEFAULT true, -- false: offsets are in a whole-file gzip's decompressed bytes
    owner        text NOT NULL DEFAULT '',      -- the ingest process reading it
    lease_until  timestamptz,                   -- its claim runs out then unless renewed
    counts       jsonb NOT NULL DEFAULT '{}',   -- read, kept, filtered, duplicates, malformed, …
    started_at   timestamptz NOT NULL DEFAULT now(),
    finished_at  timestamptz,
    updated_at   timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE ingest_sources;
ALTER TABLE documents DROP COLUMN origin, DROP COLUMN warc_file, DROP COLUMN warc_offset, DROP COLUMN warc_length,
    DROP COLUMN warc_record_id, DROP COLUMN warc_date, DROP COLUMN warc_truncated;
