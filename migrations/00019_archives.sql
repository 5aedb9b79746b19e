-- Web archives: where each stored page's capture lives in a WARC file
-- (an archive it was ingested from, or the file the crawler wrote it to),
-- and the ingest checkpoints, one row per source.
-- Page bodies and article texts are compressed with lz4 from here on
-- instead of pglz: storing a 40 KB page took 2.3 ms of the server's time
-- with pglz, 0.6–0.9 ms with lz4 (an archive ingest is bound by it). Rows
-- stored before keep pglz (both read alike); a server built without lz4
-- keeps pglz.
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

-- +goose StatementBegin
DO $$
BEGIN
    ALTER TABLE documents ALTER COLUMN body SET COMPRESSION lz4;
    ALTER TABLE cleaned ALTER COLUMN text SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'this server has no lz4: page bodies stay compressed with pglz';
END $$;
-- +goose StatementEnd

-- +goose Down
ALTER TABLE documents ALTER COLUMN body SET COMPRESSION default;
ALTER TABLE cleaned ALTER COLUMN text SET COMPRESSION default;
DROP TABLE ingest_sources;
ALTER TABLE documents DROP COLUMN origin, DROP COLUMN warc_file, DROP COLUMN warc_offset, DROP COLUMN warc_length,
    DROP COLUMN warc_record_id, DROP COLUMN warc_date, DROP COLUMN warc_truncated;
