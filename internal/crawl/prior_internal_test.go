package crawl

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/testenv"
)

// Lookups that come while a query is out share the next one, and each
// handler gets its own URL's answer: a known URL's validators and hub flag,
// an unknown URL's zero prior, a forgotten document, and a URL whose
// document was stored through another URL after it was queued.
func TestPriorLoader_LookupsWaitingShareOneQuery(t *testing.T) {
	t.Parallel()
	pool := testenv.Postgres(t)
	ctx := t.Context()
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	const n = 30
	for i := range n {
		if i%3 == 0 {
			continue // unknown to the frontier
		}
		exec(`INSERT INTO urls (url, doc_id, host, etag, is_hub, first_seen_at) VALUES ($1, $2, 'a.example', $3, $4, now() - interval '1 hour')`,
			fmt.Sprintf("https://a.example/%d", i), fmt.Sprintf("doc-%d", i), fmt.Sprintf(`"e%d"`, i), i%5 == 0)
	}
	exec(`INSERT INTO documents (doc_id, url, host, status, body, body_hash, fetched_at, first_seen_at)
		VALUES ('doc-7', 'https://a.example/other', 'a.example', 200, '', 'h', now(), now())`)
	exec(`INSERT INTO forgotten (doc_id, url, reason) VALUES ('doc-4', 'https://a.example/4', 'takedown')`)

	// Hold the first query at the forgotten table until every other lookup
	// is waiting behind it.
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `LOCK TABLE forgotten IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	l := &priorLoader{pool: pool}
	type answer struct {
		p         prior
		forgotten bool
		err       error
	}
	answers := make([]answer, n)
	var wg sync.WaitGroup
	ask := func(i int) {
		wg.Go(func() {
			p, f, err := l.lookup(ctx, fmt.Sprintf("https://a.example/%d", i), fmt.Sprintf("doc-%d", i))
			answers[i] = answer{p, f, err}
		})
	}
	ask(0)
	waiting := func(want int) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			l.mu.Lock()
			got, busy := len(l.waiting), l.busy
			l.mu.Unlock()
			if busy && got == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d lookups waiting (busy %v); want %d", got, busy, want)
			}
		}
	}
	waiting(0) // the first is out, held by the lock
	for i := 1; i < n; i++ {
		ask(i)
	}
	waiting(n - 1)
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()

	for i, a := range answers {
		if a.err != nil {
			t.Fatalf("lookup %d: %v", i, a.err)
		}
		want := prior{}
		if i%3 != 0 {
			want = prior{ETag: fmt.Sprintf(`"e%d"`, i), IsHub: i%5 == 0, FetchedSince: i == 7}
		}
		if a.p != want || a.forgotten != (i == 4) {
			t.Errorf("lookup %d: %+v forgotten %v; want %+v forgotten %v", i, a.p, a.forgotten, want, i == 4)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.busy || len(l.waiting) != 0 || l.queries != 2 {
		t.Fatalf("loader left busy %v with %d waiting after %d queries; want idle after 2", l.busy, len(l.waiting), l.queries)
	}
}
