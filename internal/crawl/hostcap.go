package crawl

import (
	"context"
	"fmt"
	"sort"

	"github.com/jackc/pgx/v5"
)

// capLinks drops the new links of hosts whose frontier is full
// (Config.MaxURLsPerHost), so that a site generating URLs without end
// cannot grow the frontier without end, and counts the new links it keeps.
// It runs in the handler, outside the ledger's transaction: the count row
// of a busy host is never held across a batch. The count is an upper
// bound (a commit that fails, or two requests finding the same URL, count
// it again), so the cap only ever comes early.
func (c *Crawler) capLinks(ctx context.Context, links []link) ([]link, error) {
	if len(links) == 0 {
		return links, nil
	}
	urls := make([]string, len(links))
	for i, l := range links {
		urls[i] = l.URL
	}
	rows, err := c.pool.Query(ctx, `SELECT u FROM unnest($1::text[]) AS t(u) WHERE NOT EXISTS (SELECT 1 FROM urls WHERE url = t.u)`, urls)
	if err != nil {
		return nil, fmt.Errorf("look up discovered urls: %w", err)
	}
	unknown, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("look up discovered urls: %w", err)
	}
	if len(unknown) == 0 {
		return links, nil
	}
	isNew := make(map[string]bool, len(unknown))
	for _, u := range unknown {
		isNew[u] = true
	}
	var hosts []string
	seen := map[string]bool{}
	for _, l := range links {
		if isNew[l.URL] && !seen[l.Host] {
			seen[l.Host] = true
			hosts = append(hosts, l.Host)
		}
	}
	room := map[string]int64{}
	for _, h := range hosts {
		room[h] = c.cfg.MaxURLsPerHost
	}
	rows, err = c.pool.Query(ctx, `SELECT host, urls FROM crawl_hosts WHERE host = ANY($1)`, hosts)
	if err != nil {
		return nil, fmt.Errorf("read the frontier's size per host: %w", err)
	}
	for rows.Next() {
		var h string
		var n int64
		if err := rows.Scan(&h, &n); err != nil {
			rows.Close()
			return nil, err
		}
		room[h] = c.cfg.MaxURLsPerHost - n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := links[:0]
	kept, dropped := map[string]int64{}, map[string]int{}
	for _, l := range links {
		if isNew[l.URL] {
			if room[l.Host] <= 0 {
				dropped[l.Host]++
				continue
			}
			room[l.Host]--
			kept[l.Host]++
		}
		out = append(out, l)
	}
	for h, n := range dropped {
		c.log.Warn("the host's frontier is full: new links dropped", "host", h, "dropped", n, "limit", c.cfg.MaxURLsPerHost)
	}
	if len(kept) > 0 {
		sort.Strings(hosts) // one lock order for every writer
		var names []string
		var counts []int64
		for _, h := range hosts {
			if kept[h] > 0 {
				names, counts = append(names, h), append(counts, kept[h])
			}
		}
		if _, err := c.pool.Exec(ctx, `INSERT INTO crawl_hosts (host, urls) SELECT h, n FROM unnest($1::text[], $2::bigint[]) AS t(h, n)
			ORDER BY h ON CONFLICT (host) DO UPDATE SET urls = crawl_hosts.urls + EXCLUDED.urls`, names, counts); err != nil {
			return nil, fmt.Errorf("count the frontier per host: %w", err)
		}
	}
	return out, nil
}
