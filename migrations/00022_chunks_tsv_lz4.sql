-- chunks.tsv compressed with lz4 from here on instead of pglz: a full-text
-- query narrowed by another index (a host filter) rechecks every candidate
-- row's tsvector, and at 1M chunks decompressing pglz was most of such a
-- query (docs/SEARCH.md: checking and ranking 20,000 rows took 168–175 ms
-- with pglz, 90–92 ms with lz4). Rows stored before keep pglz (both read
-- alike) until they are embedded again; a server built without lz4 keeps
-- pglz.
-- Additive: the release before reads and writes the column as it did.

-- +goose Up
-- +goose StatementBegin
DO $$
BEGIN
    ALTER TABLE chunks ALTER COLUMN tsv SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'this server has no lz4: chunks.tsv stays compressed with pglz';
END $$;
-- +goose StatementEnd

-- +goose Down
ALTER TABLE chunks ALTER COLUMN tsv SET COMPRESSION default;
