package crawl

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// capLinks returns the discovered links the frontier lacks and the caps
// let in, in their order: known links are left out (the frontier has
// them), and so are the new links of hosts whose frontier is full
// (Config.MaxURLsPerHost) and the new hub links (feeds, sitemaps, indexes)
// of hosts that have their share of hubs (Config.MaxHubsPerHost), so that a
// site generating URLs or endless nested indexes cannot grow the frontier
// without end. It counts what it keeps and what the caps dropped per host.
// Only discovered links come here: seeds and archive records are never
// capped. It runs in the handler, outside the ledger's transaction: the
// count row of a busy host is never held across a batch. The count is an
// upper bound (a commit that fails, or two requests finding the same URL,
// count it again), so a cap only ever comes early.
//
// One statement does it all (capLinksSQL), in one round trip with an
// asynchronous commit, as addLinks does: it was five round trips and a
// synchronous commit per page with links (a probe, then BEGIN, the hosts'
// rows FOR UPDATE, their counts, COMMIT).
func (c *Crawler) capLinks(ctx context.Context, links []link) ([]link, error) {
	if len(links) == 0 {
		return nil, nil
	}
	urls, hosts, hubs := make([]string, len(links)), make([]string, len(links)), make([]bool, len(links))
	for i, l := range links {
		urls[i], hosts[i], hubs[i] = l.URL, l.Host, l.Hub
	}
	var verdicts []capVerdict
	var b pgx.Batch // one round trip, one implicit transaction
	b.Queue(`SELECT set_config('synchronous_commit', 'off', true)`)
	b.Queue(capLinksSQL, urls, hosts, hubs, c.cfg.MaxURLsPerHost, c.cfg.MaxHubsPerHost).Query(func(rows pgx.Rows) error {
		var err error
		verdicts, err = pgx.CollectRows(rows, pgx.RowToStructByPos[capVerdict])
		return err
	})
	if err := c.pool.SendBatch(ctx, &b).Close(); err != nil {
		return nil, fmt.Errorf("count the frontier per host: %w", err)
	}
	var out []link
	type drops struct{ links, hubs int }
	dropped := map[string]*drops{}
	var hostsDropping []string // in the order the links name them
	for _, v := range verdicts {
		if v.Verdict == verdictKept {
			out = append(out, links[v.Index-1])
			continue
		}
		d := dropped[v.Host]
		if d == nil {
			d = &drops{}
			dropped[v.Host] = d
			hostsDropping = append(hostsDropping, v.Host)
		}
		switch v.Verdict {
		case verdictFull:
			d.links++
		case verdictHubs:
			d.hubs++
		}
	}
	for _, h := range hostsDropping {
		if n := dropped[h].links; n > 0 {
			c.log.Warn("the host's frontier is full: new links dropped", "host", h, "dropped", n, "limit", c.cfg.MaxURLsPerHost)
		}
		if n := dropped[h].hubs; n > 0 {
			c.log.Warn("the host has its share of hubs: new feed and sitemap links dropped", "host", h, "dropped", n, "limit", c.cfg.MaxHubsPerHost)
		}
	}
	return out, nil
}

// capVerdict is capLinksSQL's answer for one new link.
type capVerdict struct {
	Index   int64 // 1-based, in the links given
	Host    string
	Verdict string
}

const (
	verdictKept = "kept"
	verdictFull = "full" // the host's frontier is full
	verdictHubs = "hubs" // the host has its share of hubs
)

// capLinksSQL judges the new links ($1 URLs, $2 hosts, $3 whether each is a
// hub; $4 and $5 the caps) and counts them per host. The hosts' count rows
// are locked in host order (one lock order for every writer), so handlers
// taking links of one host at once never pass its caps together: the
// second reads the first's counts once it commits. The judgement is
// that of a walk through them: links are taken in order while the host
// has room, and hubs only while it has hub room; a hub dropped for want of
// hub room takes no room, so before link i the host has taken the other
// links before it and min(hub room, the hubs before it) — the walk a link
// at a time, in closed form.
const capLinksSQL = `
	WITH l AS (
		SELECT t.url, t.host, t.hub, t.i
		FROM unnest($1::text[], $2::text[], $3::bool[]) WITH ORDINALITY AS t(url, host, hub, i)
		WHERE NOT EXISTS (SELECT 1 FROM urls WHERE urls.url = t.url)),
	held AS (
		SELECT host, urls, hubs FROM crawl_hosts WHERE host IN (SELECT host FROM l) ORDER BY host FOR UPDATE),
	ranked AS (
		SELECT l.host, l.hub, l.i,
		       $4::bigint - coalesce(held.urls, 0) AS room,
		       $5::bigint - coalesce(held.hubs, 0) AS hub_room,
		       count(*) FILTER (WHERE l.hub) OVER before AS hubs_before,
		       count(*) FILTER (WHERE NOT l.hub) OVER before AS others_before
		FROM l LEFT JOIN held USING (host)
		WINDOW before AS (PARTITION BY l.host ORDER BY l.i ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)),
	judged AS (
		SELECT host, hub, i,
		       CASE WHEN others_before + least(greatest(hub_room, 0), hubs_before) >= room THEN 'full'
		            WHEN hub AND hubs_before >= hub_room THEN 'hubs'
		            ELSE 'kept' END AS verdict
		FROM ranked),
	counted AS (
		INSERT INTO crawl_hosts (host, urls, hubs, urls_dropped, hubs_dropped)
		SELECT host, count(*) FILTER (WHERE verdict = 'kept'), count(*) FILTER (WHERE verdict = 'kept' AND hub),
		       count(*) FILTER (WHERE verdict = 'full'), count(*) FILTER (WHERE verdict = 'hubs')
		FROM judged GROUP BY host ORDER BY host
		ON CONFLICT (host) DO UPDATE SET urls = crawl_hosts.urls + EXCLUDED.urls, hubs = crawl_hosts.hubs + EXCLUDED.hubs,
			urls_dropped = crawl_hosts.urls_dropped + EXCLUDED.urls_dropped, hubs_dropped = crawl_hosts.hubs_dropped + EXCLUDED.hubs_dropped)
	SELECT i, host, verdict FROM judged ORDER BY i`

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
