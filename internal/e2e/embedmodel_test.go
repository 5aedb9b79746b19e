package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

const embedDims = 64

// embeddingModel is an OpenAI-compatible /v1/embeddings server with the
// quirks local servers have: it answers floats whatever encoding_format
// asks for, and 429 to its second request. Its vectors are bags of hashed words,
// so a query shares dimensions with the chunks that have its words. It
// keeps every request body and Authorization header.
func embeddingModel(t *testing.T) (*httptest.Server, func() ([]map[string]any, []string)) {
	var mu sync.Mutex
	var bodies []map[string]any
	var auths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" {
			http.NotFound(w, r)
			return
		}
		var req map[string]any
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		bodies = append(bodies, req)
		auths = append(auths, r.Header.Get("Authorization"))
		n := len(bodies)
		mu.Unlock()
		if n == 2 {
			w.Header().Set("Retry-After", "0.2")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"error":{"message":"slow down","type":"rate_limit"}}`)
			return
		}
		var data []map[string]any
		inputs, _ := req["input"].([]any)
		for i, in := range inputs {
			s, _ := in.(string)
			v := make([]float64, embedDims)
			for _, word := range strings.Fields(strings.ToLower(s)) {
				h := fnv.New32a()
				h.Write([]byte(strings.Trim(word, ".,:;'\"")))
				v[h.Sum32()%embedDims]++
			}
			var norm float64
			for _, x := range v {
				norm += x * x
			}
			for j := range v {
				v[j] /= math.Max(math.Sqrt(norm), 1)
			}
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": v})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req["model"]})
	}))
	t.Cleanup(srv.Close)
	return srv, func() ([]map[string]any, []string) {
		mu.Lock()
		defer mu.Unlock()
		return append([]map[string]any(nil), bodies...), append([]string(nil), auths...)
	}
}

// The built embedder and newsctl search against an OpenAI-compatible
// embedding server of their own (EMBED_BASE_URL, no OPENAI_BASE_URL): every
// request carries exactly the settings' fields, documents and queries their
// task prefixes, the key; the floats answered to base64 and the 429s cost
// nothing; every article is embedded and found.
func TestPipeline_EmbeddingModelServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binaries")
	}
	bin := build(t)
	pool := testenv.Postgres(t)
	_, prefix := streamkittest.Redis(t)
	srv, _ := site(t)
	model, requests := embeddingModel(t)
	environ := append(env(t, streamkittest.SchemaOf(pool), prefix),
		"EMBED_BASE_URL="+model.URL+"/v1", "EMBED_API_KEY=sk-embed", "EMBED_MODEL=bag-of-words",
		fmt.Sprintf("EMBED_DIMENSIONS=%d", embedDims), "EMBED_SEND_DIMENSIONS=true", "EMBED_ENCODING=base64",
		"EMBED_DOCUMENT_PREFIX=search_document: ", "EMBED_QUERY_PREFIX=search_query: ")
	ws := startWorkers(t, bin, environ)
	newsctl(t, bin, environ, "seed", srv.URL+"/")
	newsctl(t, bin, environ, "wait", "--timeout", "2m")

	ctx := context.Background()
	var embedded int
	var models []string
	pool.QueryRow(ctx, `SELECT count(DISTINCT k.doc_id), array_agg(DISTINCT k.model) FROM chunks k JOIN cleaned c USING (doc_id)
		WHERE c.duplicate_of IS NULL AND k.dims = $1`, embedDims).Scan(&embedded, &models)
	if embedded != 3 || len(models) != 1 || !strings.HasPrefix(models[0], "bag-of-words+p") {
		t.Errorf("%d documents embedded by %v; want 3 by bag-of-words with a prefix digest", embedded, models)
	}
	if out := newsctl(t, bin, environ, "dlq", "counts"); strings.Contains(out, "embed") {
		t.Errorf("dead letters: %s", out)
	}

	var got []struct{ URL string }
	if err := json.Unmarshal([]byte(newsctl(t, bin, environ, "search", "chess tournament grandmasters", "--k", "3", "--json")), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || !strings.HasSuffix(got[0].URL, "/news/chess.html") {
		t.Errorf("search: top hits %+v, want /news/chess.html", got)
	}

	bodies, auths := requests()
	var queries int
	for i, b := range bodies {
		keys := make([]string, 0, len(b))
		for k := range b {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if strings.Join(keys, ",") != "dimensions,encoding_format,input,model" || b["model"] != "bag-of-words" ||
			b["encoding_format"] != "base64" || b["dimensions"] != float64(embedDims) || auths[i] != "Bearer sk-embed" {
			t.Errorf("request %d: %v with Authorization %q", i, b, auths[i])
		}
		inputs, _ := b["input"].([]any)
		for _, in := range inputs {
			s, _ := in.(string)
			switch {
			case strings.HasPrefix(s, "search_query: "):
				queries++
			case !strings.HasPrefix(s, "search_document: "):
				t.Errorf("request %d: input %.40q has no task prefix", i, s)
			}
		}
	}
	// At least 3 documents (one request each at these sizes; a wire copy
	// forwarded before it was found a duplicate adds one), one of them
	// asked again after the 429, and the query.
	if queries != 1 || len(bodies) < 5 {
		t.Errorf("%d requests with %d query inputs; want 5 or more with 1", len(bodies), queries)
	}
	ws.stop(t)
}
