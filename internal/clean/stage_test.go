package clean_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/article"
	"github.com/newscrawl/newscrawl/internal/clean"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// articlePage renders a realistic news page around paragraphs.
func articlePage(title string, paras []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<!doctype html><html lang="en"><head><title>%s | Daily Bugle</title>
<meta property="og:title" content="%s"><meta property="article:published_time" content="2024-03-05T10:00:00Z">
<meta name="author" content="Jane Doe"></head><body>
<header><nav><a href="/">Home</a> <a href="/world">World</a> <a href="/sport">Sport</a></nav></header>
<main><article><h1>%s</h1><p class="byline">By Jane Doe</p>`, title, title, title)
	for _, p := range paras {
		fmt.Fprintf(&b, "<p>%s</p>\n", p)
	}
	b.WriteString(`</article><aside class="related"><h3>Related</h3><ul><li><a href="/a">Other story one</a></li><li><a href="/b">Other story two</a></li></ul></aside></main>
<footer><p>© Daily Bugle. All rights reserved.</p><a href="/privacy">Privacy</a></footer></body></html>`)
	return b.String()
}

var story = []string{
	"The city council approved a new budget on Tuesday after a debate that stretched late into the evening, with members split over how much to spend on schools and roads.",
	"Supporters said the plan would repair dozens of bridges and hire more teachers, while critics argued that the tax increase would fall hardest on small businesses.",
	"The mayor, who had pushed for the spending, said she was relieved the measure passed and promised regular public reports on how the money is used.",
	"The budget takes effect in July, and the first projects are expected to begin before the end of the summer, according to officials in the public works department.",
}

type fixture struct{ *testenv.Env }

func (f *fixture) document(docID, url string, body []byte) string {
	f.T.Helper()
	hash := pipeline.BodyHash(body)
	_, err := f.Pool.Exec(context.Background(), `INSERT INTO documents (doc_id, url, host, status, body, body_hash, fetched_at, first_seen_at)
		VALUES ($1, $2, 'example.com', 200, $3, $4, now(), clock_timestamp())`, docID, url, body, hash)
	if err != nil {
		f.T.Fatal(err)
	}
	f.publish(docID, hash, url)
	return hash
}

func (f *fixture) publish(docID, hash, url string) {
	f.T.Helper()
	f.publishAs(pipeline.FieldBodyHash, docID, hash, url)
}

// publishAs sends a clean message with the body hash in field: the
// crawler's body_hash, or content_hash as crawlers sent it before the
// rename.
func (f *fixture) publishAs(field, docID, hash, url string) {
	f.T.Helper()
	err := f.RDB.XAdd(context.Background(), &redis.XAddArgs{Stream: streamkit.KeysFor(f.Prefix, pipeline.Clean).Stream(),
		Values: map[string]interface{}{"doc_id": docID, field: hash, "url": url}}).Err()
	if err != nil {
		f.T.Fatal(err)
	}
}

// runCleaner runs the cleaner stage on the fixture's stream until the test ends.
func (f *fixture) runCleaner() {
	f.T.Helper()
	f.Run(streamkit.Config{Stage: pipeline.Clean, Group: pipeline.CleanerGroup, Version: clean.Version, Key: clean.Key,
		Concurrency: 2, Visibility: 5 * time.Second, Block: 100 * time.Millisecond, JanitorInterval: -1},
		clean.NewStage(f.Pool, clean.Config{}, nil))
}

func (f *fixture) waitFor(what string, cond func(ctx context.Context) bool) {
	f.T.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(60 * time.Second)
	for !cond(ctx) {
		if time.Now().After(deadline) {
			f.T.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (f *fixture) ledgerRows(ctx context.Context) int {
	var n int
	f.Pool.QueryRow(ctx, `SELECT count(*) FROM stage_results`).Scan(&n)
	return n
}

func (f *fixture) duplicateOf(docID string) string {
	f.T.Helper()
	var dup *string
	if err := f.Pool.QueryRow(context.Background(), `SELECT duplicate_of FROM cleaned WHERE doc_id = $1`, docID).Scan(&dup); err != nil {
		f.T.Fatalf("cleaned row %s: %v", docID, err)
	}
	if dup == nil {
		return ""
	}
	return *dup
}

func (f *fixture) extractDocs() []string {
	msgs, _ := f.RDB.XRange(context.Background(), streamkit.KeysFor(f.Prefix, pipeline.Extract).Stream(), "-", "+").Result()
	var docs []string
	for _, m := range msgs {
		docs = append(docs, m.Values["doc_id"].(string))
	}
	return docs
}

func TestStage_CleansLinksDuplicatesAndDeadLettersBadInput(t *testing.T) {
	t.Parallel()
	f := &fixture{testenv.New(t)}
	f.runCleaner()
	ctx := context.Background()
	rdb, prefix := f.RDB, f.Prefix
	dlq := f.Keys(pipeline.Clean).DLQ()

	// The original and the inputs that are not articles.
	f.document("orig", "https://example.com/news/budget", []byte(articlePage("Council approves budget", story)))
	f.document("listing", "https://example.com/", []byte(`<html><body><nav><a href="/1">One</a></nav><ul>`+
		strings.Repeat(`<li><a href="/story">A headline that links to a story somewhere else on the site</a></li>`, 30)+`</ul></body></html>`))
	f.document("binary", "https://example.com/file.bin", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"))
	f.publish("ghost", "abc", "https://example.com/ghost")
	f.waitFor("2 cleaned, 2 dead", func(ctx context.Context) bool { return f.ledgerRows(ctx) == 2 && rdb.XLen(ctx, dlq).Val() == 2 })

	var title, text string
	var isArticle bool
	f.Pool.QueryRow(ctx, `SELECT title, text, is_article FROM cleaned WHERE doc_id = 'orig'`).Scan(&title, &text, &isArticle)
	if !isArticle || title != "Council approves budget" || !strings.Contains(text, "approved a new budget") ||
		strings.Contains(text, "All rights reserved") || strings.Contains(text, "Other story one") {
		t.Errorf("original cleaned wrong: article=%v title=%q text=%q", isArticle, title, text)
	}
	f.Pool.QueryRow(ctx, `SELECT is_article FROM cleaned WHERE doc_id = 'listing'`).Scan(&isArticle)
	if isArticle {
		t.Errorf("listing page classified as an article")
	}
	admin := &streamkit.Admin{RDB: rdb, Prefix: prefix}
	counts, _ := admin.DLQCounts(ctx, pipeline.Clean)
	if counts["not_html"] != 1 || counts["missing_input"] != 1 {
		t.Fatalf("dead letters by type = %v, want not_html and missing_input", counts)
	}

	// Wire copies arrive later: linked to the original, not forwarded.
	f.document("exact", "https://mirror.example.org/wire/budget", []byte(articlePage("Council approves budget", story)))
	near := append([]string{}, story...)
	near[3] = strings.Replace(near[3], "before the end of the summer", "before the end of summer", 1)
	f.document("near", "https://other.example.net/budget-story", []byte(articlePage("Council approves budget plan", near)))
	f.waitFor("copies cleaned", func(ctx context.Context) bool { return f.ledgerRows(ctx) == 4 })
	for _, id := range []string{"exact", "near"} {
		if got := f.duplicateOf(id); got != "orig" {
			t.Errorf("%s: duplicate_of = %q, want orig", id, got)
		}
	}
	if docs := f.extractDocs(); len(docs) != 1 || docs[0] != "orig" {
		t.Fatalf("extract stream = %v, want only orig", docs)
	}

	// A copy the crawler saw before the original, cleaned last: it becomes
	// the original of the whole group.
	body := []byte(articlePage("Council approves the budget", story))
	_, err := f.Pool.Exec(ctx, `INSERT INTO documents (doc_id, url, host, status, body, body_hash, fetched_at, first_seen_at)
		VALUES ('early', 'https://early.example.com/b', 'early.example.com', 200, $1, $2, now(), now() - interval '1 hour')`,
		body, pipeline.BodyHash(body))
	if err != nil {
		t.Fatal(err)
	}
	f.publish("early", pipeline.BodyHash(body), "https://early.example.com/b")
	f.waitFor("early cleaned", func(ctx context.Context) bool { return f.ledgerRows(ctx) == 5 })
	for _, id := range []string{"orig", "exact", "near"} {
		if got := f.duplicateOf(id); got != "early" {
			t.Errorf("%s: duplicate_of = %q after relink, want early", id, got)
		}
	}
	if got := f.duplicateOf("early"); got != "" {
		t.Errorf("early: duplicate_of = %q, want none", got)
	}
}

// Copies of one story cleaned at the same moment by two consumers, in
// different transactions: exactly one becomes the original, the rest
// point at it, and unrelated stories beside them are originals.
func TestStage_ConcurrentCopiesHaveOneOriginal(t *testing.T) {
	t.Parallel()
	f := &fixture{testenv.New(t)}
	for i := range 12 {
		copyText := append([]string{}, story...)
		if i%2 == 1 { // every other copy differs by a word: a near duplicate
			copyText[3] = strings.Replace(copyText[3], "before the end of the summer", "before the end of summer", 1)
		}
		f.document(fmt.Sprintf("copy-%d", i), fmt.Sprintf("https://site%d.example.com/budget", i), []byte(articlePage("Council approves budget", copyText)))
	}
	for i := range 6 {
		other := []string{
			fmt.Sprintf("A completely different report number %d about the harbour, the ferries that cross it every morning and the fishermen who work there.", i),
			fmt.Sprintf("Story %d goes on about the weather at sea, the price of fuel and the way the harbour master keeps the boats apart in a storm.", i),
			fmt.Sprintf("In the end of story %d the ferry company said it would add two evening crossings in the summer to carry the many tourists.", i),
		}
		f.document(fmt.Sprintf("other-%d", i), fmt.Sprintf("https://harbour.example.com/%d", i), []byte(articlePage(fmt.Sprintf("Harbour news %d", i), other)))
	}
	for i := range 2 {
		f.Run(streamkit.Config{Stage: pipeline.Clean, Group: pipeline.CleanerGroup, Consumer: fmt.Sprintf("c%d", i), Key: clean.Key,
			Concurrency: 4, BatchSize: 3, Visibility: 5 * time.Second, Block: 100 * time.Millisecond, JanitorInterval: -1},
			clean.NewStage(f.Pool, clean.Config{}, nil))
	}
	f.waitFor("all cleaned", func(ctx context.Context) bool { return f.ledgerRows(ctx) == 18 })
	var originals, others int
	ctx := context.Background()
	f.Pool.QueryRow(ctx, `SELECT count(*) FROM cleaned WHERE doc_id LIKE 'copy-%' AND duplicate_of IS NULL`).Scan(&originals)
	f.Pool.QueryRow(ctx, `SELECT count(*) FROM cleaned WHERE doc_id LIKE 'other-%' AND duplicate_of IS NULL`).Scan(&others)
	if originals != 1 || others != 6 {
		t.Fatalf("%d originals among 12 copies (want 1), %d among 6 unrelated stories (want 6)", originals, others)
	}
}

// A clean message sent before the hash fields were renamed carries the
// body hash as content_hash. It is cleaned, under the key a body_hash
// message has (so an upgrade redoes nothing: the new message for the same
// page finds the old one's work done), and what goes on to the extractor
// carries the text hash as text_hash.
func TestStage_OldFormatMessageKeepsItsKey(t *testing.T) {
	t.Parallel()
	f := &fixture{testenv.New(t)}
	f.runCleaner()
	ctx := context.Background()
	body := []byte(articlePage("Council approves budget", story))
	const url = "https://example.com/news/budget"
	hash := pipeline.BodyHash(body)
	if _, err := f.Pool.Exec(ctx, `INSERT INTO documents (doc_id, url, host, status, body, body_hash, fetched_at, first_seen_at)
		VALUES ('doc', $1, 'example.com', 200, $2, $3, now(), now())`, url, body, hash); err != nil {
		t.Fatal(err)
	}
	extract := f.Keys(pipeline.Extract).Stream()

	f.publishAs(pipeline.FieldLegacyHash, "doc", hash, url)
	f.waitFor("the old-format message cleaned", func(ctx context.Context) bool { return f.RDB.XLen(ctx, extract).Val() == 1 })
	// The same page's message as a new crawler sends it: the ledger has
	// its key, so it is not cleaned again, only its output re-sent.
	f.publishAs(pipeline.FieldBodyHash, "doc", hash, url)
	f.waitFor("the new-format message answered from the ledger", func(ctx context.Context) bool { return f.RDB.XLen(ctx, extract).Val() == 2 })

	want := pipeline.LedgerKey(pipeline.Clean, "doc", hash, clean.Version)
	var keys []string
	rows, _ := f.Pool.Query(ctx, `SELECT key FROM stage_results ORDER BY key`)
	for rows.Next() {
		var k string
		_ = rows.Scan(&k)
		keys = append(keys, k)
	}
	if len(keys) != 1 || keys[0] != want {
		t.Fatalf("ledger keys = %v, want only %s", keys, want)
	}
	var textHash string
	if err := f.Pool.QueryRow(ctx, `SELECT text_hash FROM cleaned WHERE doc_id = 'doc' AND body_hash = $1`, hash).Scan(&textHash); err != nil {
		t.Fatalf("cleaned row: %v", err)
	}
	msgs, _ := f.RDB.XRange(ctx, extract, "-", "+").Result()
	for _, m := range msgs {
		if m.Values[pipeline.FieldTextHash] != textHash || m.Values[pipeline.FieldLegacyHash] != nil {
			t.Errorf("extract message %v, want text_hash %s and no content_hash", m.Values, textHash)
		}
	}
	if dead := f.RDB.XLen(ctx, f.Keys(pipeline.Clean).DLQ()).Val(); dead != 0 {
		t.Errorf("%d dead letters, want none", dead)
	}
}

// A page its publisher marks for subscribers is stored with its text and
// flagged; a free one is not flagged.
func TestStage_FlagsPaywalledArticles(t *testing.T) {
	t.Parallel()
	f := &fixture{testenv.New(t)}
	f.runCleaner()
	paid := strings.Replace(articlePage("Council approves budget", story), "</head>",
		`<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle",
		"headline":"Council approves budget","isAccessibleForFree":false,
		"hasPart":{"@type":"WebPageElement","isAccessibleForFree":false,"cssSelector":".paywall"}}</script></head>`, 1)
	f.document("paid", "https://example.com/news/budget", []byte(paid))
	f.document("free", "https://example.com/news/budget-free", []byte(articlePage("Council approves a budget", story[:3])))
	f.waitFor("both cleaned", func(ctx context.Context) bool { return f.ledgerRows(ctx) == 2 })

	for doc, want := range map[string]bool{"paid": true, "free": false} {
		var paywalled bool
		var text string
		if err := f.Pool.QueryRow(context.Background(), `SELECT paywalled, text FROM cleaned WHERE doc_id = $1`, doc).Scan(&paywalled, &text); err != nil {
			t.Fatal(err)
		}
		if paywalled != want || !strings.Contains(text, "approved a new budget") {
			t.Errorf("%s: paywalled=%v (want %v), text %q", doc, paywalled, want, text)
		}
	}
}

// heavyLiveBlog is a long live blog: thousands of timed updates, each a
// heading, paragraphs and a link, which takes a good share of a second to
// extract on a quiet machine (several seconds under the race detector).
func heavyLiveBlog(updates int) []byte {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><title>Live: the storm as it happened | Daily Bugle</title>
<meta property="og:type" content="article"><meta property="article:published_time" content="2024-03-05T10:00:00Z"></head><body>
<header><nav><a href="/">Home</a> <a href="/world">World</a></nav></header><main><article><h1>Live: the storm as it happened</h1>`)
	for i := range updates {
		fmt.Fprintf(&b, `<div class="live-update"><time class="update-time" datetime="2024-03-05T%02d:%02d:00Z">%02d:%02d</time><h2>Update %d</h2>`, 10+i/600%12, i/10%60, 10+i/600%12, i/10%60, i)
		fmt.Fprintf(&b, `<p>Crews in district %d reported %d fallen trees and said the main road would stay closed, while residents were told to keep away from the river banks for the night.</p>`, i, i%17)
		fmt.Fprintf(&b, `<p>Power was back for %d homes by then, the utility said, and a <a href="/live/%d">full list of closures</a> is kept up to date.</p></div>`, i*3, i)
	}
	b.WriteString(`</article></main><footer><p>© Daily Bugle</p></footer></body></html>`)
	return []byte(b.String())
}

// cpuHog keeps every core busy until the test ends, as the other stages of
// a pipeline on one box (or CI) do.
func cpuHog(t *testing.T) {
	stop := make(chan struct{})
	for range 2 * runtime.NumCPU() {
		go func() {
			x := 0
			for {
				select {
				case <-stop:
					return
				default:
					for i := range 100_000 {
						x += i
					}
				}
			}
		}()
	}
	t.Cleanup(func() { close(stop) })
}

// On a busy machine a heavy page costs more time but not more work: it is
// stored, not dead-lettered, while the verdicts of the work limits
// (too_complex) are the same as on a quiet machine, and a page that always
// trips the time guard ends as a runaway after the end rule, not before.
func TestStage_BusyMachineSpendsNoDocument(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := &fixture{testenv.New(t)}
	heavy := heavyLiveBlog(3000)
	cpuHog(t)
	start := time.Now()
	f.document("heavy", "https://example.com/live", heavy)
	f.document("huge", "https://example.com/huge", []byte("<html><body>"+strings.Repeat("<span>x</span>", 300_000)+"</body></html>"))
	f.runCleaner()
	f.waitFor("the heavy page cleaned and the huge one dead-lettered", func(ctx context.Context) bool {
		var n int
		f.Pool.QueryRow(ctx, `SELECT count(*) FROM cleaned WHERE doc_id = 'heavy'`).Scan(&n)
		return n == 1 && f.RDB.XLen(ctx, f.Keys(pipeline.Clean).DLQ()).Val() == 1
	})
	admin := &streamkit.Admin{RDB: f.RDB, Prefix: f.Prefix}
	counts, _ := admin.DLQCounts(ctx, pipeline.Clean)
	if counts["too_complex"] != 1 || len(counts) != 1 {
		t.Fatalf("dead letters by type %v, want only the huge page as too_complex", counts)
	}
	var words int
	f.Pool.QueryRow(ctx, `SELECT word_count FROM cleaned WHERE doc_id = 'heavy'`).Scan(&words)
	if words < 30_000 {
		t.Fatalf("heavy page kept %d words; want its text (up to the text cap)", words)
	}
	t.Logf("heavy page cleaned under the hog in %v", time.Since(start))
}

func TestStage_PageThatAlwaysRunsAwayEndsAfterTheEndRule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := &fixture{testenv.New(t)}
	f.document("slow", "https://example.com/slow", heavyLiveBlog(50))
	var tries atomic.Int64
	guarded := clean.NewStage(f.Pool, clean.Config{Extract: article.Options{Timeout: time.Nanosecond}}, nil)
	f.Run(streamkit.Config{Stage: pipeline.Clean, Group: pipeline.CleanerGroup, Version: clean.Version, Key: clean.Key,
		Concurrency: 2, Visibility: 5 * time.Second, Block: 100 * time.Millisecond, JanitorInterval: -1,
		RetryBase: 20 * time.Millisecond, PromoteInterval: 20 * time.Millisecond, MaxAttempts: 1, MaxRunaways: 3},
		streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
			tries.Add(1)
			return guarded.Handle(ctx, m)
		}))
	f.waitFor("dead-lettered", func(ctx context.Context) bool { return f.RDB.XLen(ctx, f.Keys(pipeline.Clean).DLQ()).Val() == 1 })
	admin := &streamkit.Admin{RDB: f.RDB, Prefix: f.Prefix}
	dl, err := admin.DLQList(ctx, pipeline.Clean, streamkit.DLQFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if dl[0].ErrorType != streamkit.ErrorTypeRunaway || !strings.Contains(dl[0].Error, "3 times in a row") {
		t.Fatalf("dead letter %+v; want runaway after 3 in a row (MaxAttempts 1 would have ended it at the first)", dl[0])
	}
	if n := tries.Load(); n != 3 {
		t.Fatalf("%d tries, want 3", n)
	}
}

// A page is not published after it was fetched: an archive's capture from
// before the day the page declares keeps no day, a fetch after it keeps
// the day.
func TestStage_NoPublicationDayAfterTheFetch(t *testing.T) {
	t.Parallel()
	f := &fixture{testenv.New(t)}
	f.runCleaner()
	ctx := context.Background()
	body := []byte(articlePage("Council approves budget", story)) // declares 2024-03-05T10:00:00Z
	hash := pipeline.BodyHash(body)
	for doc, fetched := range map[string]string{"captured-before": "2024-03-01T00:00:00Z", "fetched-after": "2024-03-06T00:00:00Z"} {
		url := "https://example.com/news/" + doc
		if _, err := f.Pool.Exec(ctx, `INSERT INTO documents (doc_id, url, host, status, body, body_hash, fetched_at, first_seen_at)
			VALUES ($1, $2, 'example.com', 200, $3, $4, $5, $5)`, doc, url, body, hash, fetched); err != nil {
			t.Fatal(err)
		}
		f.publish(doc, hash, url)
	}
	f.waitFor("both cleaned", func(ctx context.Context) bool { return f.ledgerRows(ctx) == 2 })

	for doc, want := range map[string]string{"captured-before": "", "fetched-after": "2024-03-05"} {
		var published *time.Time
		if err := f.Pool.QueryRow(ctx, `SELECT published_at FROM cleaned WHERE doc_id = $1`, doc).Scan(&published); err != nil {
			t.Fatal(err)
		}
		got := ""
		if published != nil {
			got = published.UTC().Format(time.DateOnly)
		}
		if got != want {
			t.Errorf("%s: published_at %q, want %q", doc, got, want)
		}
	}
}
