-- simhash_bands by document: the cleaner replaces a document's bands
-- (DELETE ... WHERE doc_id = $1) each time it cleans or relinks it, and the
-- primary key leads with (band, value), so every one of those deletes read
-- the whole table — quadratic in the documents cleaned (at 20,000 pages the
-- cleaner's batch commits ran past their 10 s deadline).
-- Additive: the release before reads and writes the table as it did.

-- +goose Up
CREATE INDEX simhash_bands_doc_id ON simhash_bands (doc_id);

-- +goose Down
DROP INDEX simhash_bands_doc_id;
