package crawl

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/newscrawl/newscrawl/internal/testenv"
)

// capLinksSQL judges as a walk through the links one at a time would:
// thirty pages of random links over three hosts, some links already in the
// frontier, against the walk written out in Go. Known links are left out,
// kept links come in their order, and each host's stored counts grow by
// what was kept and dropped, until both caps are reached.
func TestCapLinks_JudgesAsAWalkThroughTheLinks(t *testing.T) {
	t.Parallel()
	pool := testenv.Postgres(t)
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(7, 11))
	hosts := []string{"a.example", "b.example", "c.example"}
	want := map[string]*capCounts{}
	for _, h := range hosts {
		want[h] = &capCounts{}
	}
	c := &Crawler{pool: pool, cfg: Config{MaxURLsPerHost: 30, MaxHubsPerHost: 4}, log: slog.New(slog.DiscardHandler)}
	for page := range 30 {
		var links []link
		known := map[string]bool{}
		for i := range 1 + rng.IntN(20) {
			h := hosts[rng.IntN(len(hosts))]
			l := link{URL: fmt.Sprintf("https://%s/p%d-%d", h, page, i), Host: h, Hub: rng.IntN(2) == 0}
			links = append(links, l)
			if rng.IntN(5) == 0 {
				known[l.URL] = true
				if _, err := pool.Exec(ctx, `INSERT INTO urls (url, doc_id, host, state, depth) VALUES ($1, $1, $2, 'queued', 0)`, l.URL, l.Host); err != nil {
					t.Fatal(err)
				}
			}
		}
		var kept []string
		for _, l := range links {
			if !known[l.URL] && want[l.Host].take(l.Hub, c.cfg) {
				kept = append(kept, l.URL)
			}
		}
		got, err := c.capLinks(ctx, links)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(urlsOf(got), kept) {
			t.Fatalf("page %d: kept %v, want %v", page, urlsOf(got), kept)
		}
		for _, h := range hosts {
			var n capCounts
			err := pool.QueryRow(ctx, `SELECT urls, hubs, urls_dropped, hubs_dropped FROM crawl_hosts WHERE host = $1`, h).Scan(&n.urls, &n.hubs, &n.dropped, &n.hubsDropped)
			if err != nil {
				n = capCounts{} // no row yet: nothing new of the host so far
			}
			if n != *want[h] {
				t.Fatalf("page %d, %s: stored %+v, want %+v", page, h, n, *want[h])
			}
		}
	}
	var dropped, hubsDropped int64
	for _, h := range hosts {
		dropped, hubsDropped = dropped+want[h].dropped, hubsDropped+want[h].hubsDropped
	}
	if dropped == 0 || hubsDropped == 0 {
		t.Errorf("dropped %d for room and %d for hub room: a cap was never reached, so the test judged too little", dropped, hubsDropped)
	}
}

// capCounts is a host's counts in crawl_hosts.
type capCounts struct{ urls, hubs, dropped, hubsDropped int64 }

// take is the walk's step: one new link against the host's room.
func (n *capCounts) take(hub bool, cfg Config) bool {
	switch {
	case n.urls >= cfg.MaxURLsPerHost:
		n.dropped++
		return false
	case hub && n.hubs >= cfg.MaxHubsPerHost:
		n.hubsDropped++
		return false
	}
	n.urls++
	if hub {
		n.hubs++
	}
	return true
}

func urlsOf(ls []link) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.URL)
	}
	return out
}
