-- URLs the frontier has per host, for CRAWL_MAX_URLS_PER_HOST. Owned by the
-- crawler; counted after each commit outside its transaction (a rolled-back
-- commit can count twice: the cap only ever comes early).

-- +goose Up
CREATE TABLE crawl_hosts (
    host text PRIMARY KEY,   -- host[:port], as urls.host
    urls bigint NOT NULL DEFAULT 0
);
INSERT INTO crawl_hosts (host, urls) SELECT host, count(*) FROM urls GROUP BY host;

-- +goose Down
DROP TABLE crawl_hosts;
