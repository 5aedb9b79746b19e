package crawl

import (
	"context"
	"fmt"
	"sort"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// capLinks drops the new links of hosts whose frontier is full
// (Config.MaxURLsPerHost), and the new hub links (feeds, sitemaps, indexes)
// of hosts that have their share of hubs (Config.MaxHubsPerHost), so that a
// site generating URLs or endless nested indexes cannot grow the frontier
// without end. It counts what it keeps and what the caps dropped per host.
// Only discovered links come here: seeds and archive records are never
// capped. It runs in the handler, outside the ledger's transaction: the
// count row of a busy host is never held across a batch. The count is an
// upper bound (a commit that fails, or two requests finding the same URL,
// count it again), so a cap only ever comes early.
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
	counts := map[string]*hostCount{}
	for _, l := range links {
		if isNew[l.URL] && counts[l.Host] == nil {
			counts[l.Host] = &hostCount{room: c.cfg.MaxURLsPerHost, hubRoom: c.cfg.MaxHubsPerHost}
			hosts = append(hosts, l.Host)
		}
	}
	sort.Strings(hosts) // one lock order for every writer
	// The hosts' rows are locked for this short transaction only, so that
	// handlers taking links of one host at once never pass its caps together.
	tx, err := c.pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("count the frontier per host: %w", err)
	}
	defer tx.Rollback(ctx)
	rows, err = tx.Query(ctx, `SELECT host, urls, hubs FROM crawl_hosts WHERE host = ANY($1) ORDER BY host FOR UPDATE`, hosts)
	if err != nil {
		return nil, fmt.Errorf("read the frontier's size per host: %w", err)
	}
	for rows.Next() {
		var h string
		var n, hubs int64
		if err := rows.Scan(&h, &n, &hubs); err != nil {
			rows.Close()
			return nil, err
		}
		counts[h].room, counts[h].hubRoom = c.cfg.MaxURLsPerHost-n, c.cfg.MaxHubsPerHost-hubs
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the frontier's size per host: %w", err)
	}
	out := links[:0]
	for _, l := range links {
		if isNew[l.URL] && !counts[l.Host].take(l.Hub) {
			continue
		}
		out = append(out, l)
	}
	var names []string
	var kept, hubs, dropped, hubsDropped []int64
	for _, h := range hosts {
		n := counts[h]
		if n.kept+n.dropped+n.hubsDropped == 0 {
			continue
		}
		if n.dropped > 0 {
			c.log.Warn("the host's frontier is full: new links dropped", "host", h, "dropped", n.dropped, "limit", c.cfg.MaxURLsPerHost)
		}
		if n.hubsDropped > 0 {
			c.log.Warn("the host has its share of hubs: new feed and sitemap links dropped", "host", h, "dropped", n.hubsDropped, "limit", c.cfg.MaxHubsPerHost)
		}
		names = append(names, h)
		kept, hubs, dropped, hubsDropped = append(kept, n.kept), append(hubs, n.hubs), append(dropped, n.dropped), append(hubsDropped, n.hubsDropped)
	}
	if len(names) == 0 {
		return out, nil
	}
	if _, err := tx.Exec(ctx, `INSERT INTO crawl_hosts (host, urls, hubs, urls_dropped, hubs_dropped)
		SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[]) AS t(h, n, hb, d, hd) ORDER BY h
		ON CONFLICT (host) DO UPDATE SET urls = crawl_hosts.urls + EXCLUDED.urls, hubs = crawl_hosts.hubs + EXCLUDED.hubs,
			urls_dropped = crawl_hosts.urls_dropped + EXCLUDED.urls_dropped, hubs_dropped = crawl_hosts.hubs_dropped + EXCLUDED.hubs_dropped`,
		names, kept, hubs, dropped, hubsDropped); err != nil {
		return nil, fmt.Errorf("count the frontier per host: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("count the frontier per host: %w", err)
	}
	return out, nil
}

// hostCount is one host's room under the caps and what one page's links
// took of it.
type hostCount struct {
	room, hubRoom                    int64
	kept, hubs, dropped, hubsDropped int64
}

// take counts one new link, reporting whether the caps let it in.
func (n *hostCount) take(hub bool) bool {
	switch {
	case n.room <= 0:
		n.dropped++
		return false
	case hub && n.hubRoom <= 0:
		n.hubsDropped++
		return false
	}
	n.room--
	n.kept++
	if hub {
		n.hubRoom--
		n.hubs++
	}
	return true
}

// HostCaps is a host that reached a frontier cap: what it holds and what
// the caps dropped.
type HostCaps struct {
	Host                                 string
	URLs, Hubs, URLsDropped, HubsDropped int64
}

// CappedHosts returns the hosts whose new links a cap dropped, most dropped
// first, at most limit of them (newsctl stats).
func CappedHosts(ctx context.Context, pool *pgxpool.Pool, limit int) ([]HostCaps, error) {
	rows, err := pool.Query(ctx, `SELECT host, urls, hubs, urls_dropped, hubs_dropped FROM crawl_hosts
		WHERE urls_dropped > 0 OR hubs_dropped > 0 ORDER BY urls_dropped + hubs_dropped DESC, host LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("read the capped hosts: %w", err)
	}
	caps, err := pgx.CollectRows(rows, pgx.RowToStructByPos[HostCaps])
	if err != nil {
		return nil, fmt.Errorf("read the capped hosts: %w", err)
	}
	return caps, nil
}
