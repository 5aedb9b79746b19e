package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

// quirkyModel is an OpenAI-compatible chat server with the quirks local
// servers have: json_schema refused, JSON fenced in Markdown, a 429 now and
// then, placeholders in optional fields. It answers with a summary of
// whatever article it is given.
func quirkyModel(t *testing.T) (*httptest.Server, func() int) {
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/v1/models" {
			fmt.Fprint(w, `{"object":"list","data":[{"id":"local-7b","object":"model"}]}`)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ResponseFormat *struct {
				Type string `json:"type"`
			} `json:"response_format"`
		}
		_ = json.Unmarshal(body, &req)
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		switch {
		case req.ResponseFormat != nil && req.ResponseFormat.Type == "json_schema":
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"json_schema is not supported","type":"invalid_request_error"}}`)
			return
		case k%9 == 0:
			w.Header().Set("Retry-After", "0.2")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"error":{"message":"slow down","type":"rate_limit"}}`)
			return
		}
		answer := "```json\n" + `{"title": null, "summary": "A local news story, summarised by the model.", "language": "Sample language",
			"published_at": "Sample date", "authors": [], "people": [], "organizations": [], "locations": [], "topics": [],
			"keywords": "local news", "sentiment": "Sample sentiment", "quotes": []}` + "\n```"
		content, _ := json.Marshal(answer)
		fmt.Fprintf(w, `{"id":"c%d","object":"chat.completion","model":"local-7b","choices":[{"index":0,"finish_reason":"stop",
			"message":{"role":"assistant","content":%s}}],"usage":{"prompt_tokens":500,"completion_tokens":80,"total_tokens":580}}`, k, content)
	}))
	t.Cleanup(srv.Close)
	return srv, func() int { mu.Lock(); defer mu.Unlock(); return n }
}

// The built binaries against a quirky local model server: every article is
// extracted by the model (partial: the placeholders are dropped), embedded
// and found, with no dead letter.
func TestPipeline_QuirkyLocalModel(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binaries")
	}
	bin := build(t)
	pool := testenv.Postgres(t)
	_, prefix := streamkittest.Redis(t)
	srv, _ := site(t)
	model, requests := quirkyModel(t)
	environ := append(env(t, streamkittest.SchemaOf(pool), prefix),
		"OPENAI_BASE_URL="+model.URL+"/v1", "EXTRACT_MODEL=local-7b", "EMBED_PROVIDER=local")
	ws := startWorkers(t, bin, environ)
	newsctl(t, bin, environ, "seed", srv.URL+"/")
	newsctl(t, bin, environ, "wait", "--timeout", "2m")

	ctx := context.Background()
	// Counted over the articles that are not duplicates: when the copy of
	// the site's duplicate pair seen second is cleaned first, it is sent on
	// and extracted before the cleaner relinks the pair to the first-seen
	// copy, so on a loaded machine there may be one extraction more.
	outcomes := func(where string) (byModel, partial, fallbacks int) {
		pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE provider = 'openai' AND fallback_for IS NULL),
			count(*) FILTER (WHERE cardinality(invalid_fields) > 0), count(*) FILTER (WHERE fallback_for IS NOT NULL)
			FROM latest_extractions e JOIN cleaned c USING (doc_id) WHERE `+where).Scan(&byModel, &partial, &fallbacks)
		return
	}
	byModel, partial, fallbacks := outcomes("c.duplicate_of IS NULL")
	var embedded int
	pool.QueryRow(ctx, `SELECT count(DISTINCT k.doc_id) FROM chunks k JOIN cleaned c USING (doc_id) WHERE c.duplicate_of IS NULL`).Scan(&embedded)
	if byModel != 3 || partial != 3 || fallbacks != 0 || embedded != 3 {
		t.Errorf("%d extracted by the model (%d partial), %d fallbacks, %d embedded; want 3, 3, 0, 3", byModel, partial, fallbacks, embedded)
	}
	if out := newsctl(t, bin, environ, "dlq", "counts"); strings.Contains(out, "extract") {
		t.Errorf("dead letters: %s", out)
	}
	allByModel, allPartial, _ := outcomes("true")
	want := fmt.Sprintf("%d by a model (%d partial), 0 by the heuristic extractor, 0 fallbacks", allByModel, allPartial)
	if out := newsctl(t, bin, environ, "stats"); !strings.Contains(out, want) {
		t.Errorf("stats does not tell the extraction outcomes (want %q):\n%s", want, out)
	}
	t.Logf("%d requests to the model server for 3 articles", requests())
	ws.stop(t)
}
