package extract_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/extract"
	"github.com/newscrawl/newscrawl/internal/extract/llm"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

// quirky is a local model server as users meet them: it refuses
// json_schema (so json_object is used), fences its JSON in ```json blocks,
// answers 429 to every 9th request, fills optional fields with placeholder
// strings, gives an unusable first answer (no summary) for every fifth
// document, and takes delay to answer. paid counts its answers (200s)
// per document.
func quirky(delay time.Duration) (reply func(n int, req chatRequest) fakeReply, paid func() map[string]int) {
	var mu sync.Mutex
	answered := map[string]int{}
	paid = func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		out := map[string]int{}
		for k, v := range answered {
			out[k] = v
		}
		return out
	}
	return func(n int, req chatRequest) fakeReply {
		if req.format() == "json_schema" {
			return fakeReply{status: 400, errMsg: "response_format json_schema is not supported by this server"}
		}
		if (n+1)%9 == 0 {
			return fakeReply{status: 429, errMsg: "slow down", header: map[string]string{"Retry-After": "0.2"}}
		}
		doc := req.docOf()
		mu.Lock()
		answered[doc]++
		first := answered[doc] == 1
		mu.Unlock()
		var num int
		fmt.Sscanf(doc, "doc%d", &num)
		body := validJSON(func(m map[string]any) {
			m["language"] = "Sample language"
			m["published_at"] = "Sample date"
			m["sentiment"] = "Sample sentiment"
			m["keywords"] = "trees"
		})
		if first && num%5 == 0 {
			body = `{"title": "Paris trees", "summary": null}`
		}
		return fakeReply{content: "```json\n" + body + "\n```", delay: delay}
	}, paid
}

func (e *env) insertDocs(n int) []string {
	e.T.Helper()
	ids := docs(n)
	for _, id := range ids {
		e.publish(id, e.insertCleaned(article{docID: id, text: defaultText + " Reference " + id + "."}))
	}
	return ids
}

// The two scenarios of a quirky local model: answers quick against the
// visibility, and answers twice as long as the visibility. Every article
// is extracted by the model (partial allowed), forwarded, nothing is dead-
// lettered, at most two paid answers per document (answer and repair), and
// no document is ever asked about twice at once.
func TestHandler_QuirkyLocalModel(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name             string
		delay            time.Duration
		visibility       time.Duration
		secondConsumer   bool
		handlerTimeout   time.Duration
		wantMaxOverlap   int
		wantDocs         int
		wantMaxAnswers   int
		wantPartialShare float64
	}{
		{name: "answers well inside the visibility", delay: 300 * time.Millisecond, visibility: 20 * time.Second},
		// A second of visibility, not less: a busy machine stalls the lease
		// keeper for some hundreds of milliseconds, and a lapsed lease pays
		// for a document twice by design (the other consumer asks again).
		{name: "answers twice the visibility", delay: 2 * time.Second, visibility: time.Second, secondConsumer: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			reply, paid := quirky(tc.delay)
			f := newFakeLLM(t, reply)
			ids := e.insertDocs(40)
			p := openai(t, f, func(c *llm.Config) { c.Timeout = 5 * time.Second; c.Limiter = llm.NewLimiter(0, 0, 0) })
			o := consumerOpts{visibility: tc.visibility, concurrency: 4, fallback: true, maxAttempts: 5,
				handlerTimeout: 3*5*time.Second + 30*time.Second, name: "a"}
			e.start(p, o)
			if tc.secondConsumer {
				o.name = "b"
				e.start(p, o)
			}
			e.eventually("40 extracted", 60*time.Second, func() bool { return e.ledger() == 40 })
			e.settled()
			if d := e.dlq(); len(d) != 0 {
				t.Fatalf("%d dead letters, first %+v", len(d), d[0])
			}
			if n := e.count(`SELECT count(*) FROM latest_extractions WHERE provider = 'openai' AND fallback_for IS NULL`); n != 40 {
				t.Fatalf("%d of 40 extracted by the model", n)
			}
			if n := e.count(`SELECT count(*) FROM extractions WHERE 'language: placeholder "Sample language"' = ANY(invalid_fields)`); n != 40 {
				t.Errorf("%d rows record the placeholder language as an invalid field, want 40", n)
			}
			if n := e.count(`SELECT count(*) FROM extractions WHERE language IS NOT NULL OR sentiment IS NOT NULL`); n != 0 {
				t.Errorf("%d rows store a placeholder as a value", n)
			}
			forwarded := map[string]bool{}
			for _, m := range e.embedEntries() {
				forwarded[m["doc_id"].(string)] = true
			}
			answers := paid()
			for _, id := range ids {
				if !forwarded[id] {
					t.Errorf("%s not forwarded to the embedder", id)
				}
				if answers[id] > 2 {
					t.Errorf("%s: %d paid answers, want at most 2 (answer and repair)", id, answers[id])
				}
			}
			if f.overlap != 0 {
				t.Errorf("%d requests about a document that was already being asked about", f.overlap)
			}
		})
	}
}

// A server answering 5xx for the whole run: every document is stored with
// its labelled heuristic fallback and moves on. Once the server is healthy,
// reextract --fallbacks replaces exactly those with model results.
func TestHandler_FallbackThenReextract(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var mu sync.Mutex
	healthy := false
	f := newFakeLLM(t, func(n int, req chatRequest) fakeReply {
		mu.Lock()
		defer mu.Unlock()
		if !healthy && req.docOf() != "doc0" {
			return fakeReply{status: 503, errMsg: "CUDA out of memory"}
		}
		return answer(validJSON())
	})
	e.insertDocs(6)
	p := openai(t, f, nil)
	e.start(p, consumerOpts{fallback: true, maxAttempts: 2})
	e.eventually("6 documents through", 20*time.Second, func() bool { return e.ledger() == 6 })
	e.settled()
	if n := e.count(`SELECT count(*) FROM latest_extractions WHERE provider = 'heuristic' AND fallback_for = 'openai/test-model' AND fallback_reason LIKE '%CUDA out of memory%'`); n != 5 {
		t.Fatalf("%d labelled fallbacks, want 5", n)
	}
	if n := len(e.embedEntries()); n != 6 || len(e.dlq()) != 0 {
		t.Fatalf("%d forwarded, %d dead letters; want 6 and 0", n, len(e.dlq()))
	}

	mu.Lock()
	healthy = true
	mu.Unlock()
	before := len(f.Requests())
	n, err := extract.Enqueue(context.Background(), e.Pool, streamkit.NewProducer(e.RDB, e.Prefix, 0),
		extract.Backfill{Fallbacks: "openai/test-model", Rerun: "r1"})
	if err != nil || n != 5 {
		t.Fatalf("reextract --fallbacks enqueued %d (%v), want 5", n, err)
	}
	e.eventually("the fallbacks re-extracted", 20*time.Second, func() bool {
		return e.count(`SELECT count(*) FROM latest_extractions WHERE provider = 'openai'`) == 6
	})
	e.settled()
	if got := len(f.Requests()) - before; got != 5 {
		t.Errorf("%d model requests for the re-extraction, want 5 (doc0 left alone)", got)
	}
}

// A model server that is not listening yet: the stage pauses, nothing falls
// back or is dead-lettered, and it drains with model results once it is up.
func TestHandler_ServerStartedLaterPausesTheStage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := streamkittest.FreePort(t)
	f := &fakeLLM{reply: func(int, chatRequest) fakeReply { return answer(validJSON()) }, models: []string{"test-model"}}
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	base := fmt.Sprintf("http://127.0.0.1:%d/v1", port)
	p, err := llm.New(llm.Config{BaseURL: base, Model: "test-model", Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	deps := streamkit.StandardDependencies(e.RDB, e.Pool, nil)
	deps.Add(llm.Dependency, p.Probe, nil)
	t.Cleanup(deps.Close)
	e.insertDocs(5)
	e.start(p, consumerOpts{fallback: true, maxAttempts: 2, deps: deps})
	e.eventually("the stage paused on the model", 10*time.Second, func() bool {
		err := deps.Err()
		return err != nil && strings.Contains(err.Error(), "model")
	})
	time.Sleep(time.Second)
	if n, d := e.ledger(), len(e.dlq()); n != 0 || d != 0 {
		t.Fatalf("while the server was away: %d done, %d dead letters; want 0 and 0 (no fallback)", n, d)
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	f.srv.Listener = ln
	f.srv.Start()
	e.eventually("drained with the model", 20*time.Second, func() bool { return e.ledger() == 5 })
	if n := e.count(`SELECT count(*) FROM latest_extractions WHERE provider = 'openai'`); n != 5 {
		t.Fatalf("%d of 5 extracted by the model", n)
	}
}

// A misspelled model: paused with the reason, nothing dead-lettered or
// fallen back; a consumer with the right name drains the stage.
func TestHandler_UnknownModelPausesTheStage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := newFakeLLM(t, func(n int, req chatRequest) fakeReply {
		if req.Model != "llama3.1:8b" {
			return fakeReply{status: 404, errMsg: fmt.Sprintf("model %q not found, try pulling it first", req.Model)}
		}
		return answer(validJSON())
	})
	f.models = []string{"llama3.1:8b"}
	wrong := openai(t, f, func(c *llm.Config) { c.Model = "llama3.1:8" })
	deps := streamkit.StandardDependencies(e.RDB, e.Pool, nil)
	deps.Add(llm.Dependency, wrong.Probe, nil)
	t.Cleanup(deps.Close)
	e.insertDocs(4)
	stop := e.startStoppable(wrong, consumerOpts{fallback: true, maxAttempts: 2, deps: deps})
	e.eventually("the stage paused naming the model", 10*time.Second, func() bool {
		err := deps.Err()
		return err != nil && strings.Contains(err.Error(), `does not serve "llama3.1:8"`)
	})
	time.Sleep(time.Second)
	if n, d := e.ledger(), len(e.dlq()); n != 0 || d != 0 {
		t.Fatalf("with a wrong model name: %d done, %d dead letters; want 0 and 0", n, d)
	}
	stop()
	right := openai(t, f, func(c *llm.Config) { c.Model = "llama3.1:8b" })
	e.start(right, consumerOpts{fallback: true, maxAttempts: 2, name: "fixed"})
	e.eventually("drained", 20*time.Second, func() bool { return e.ledger() == 4 })
	if n := e.count(`SELECT count(*) FROM latest_extractions WHERE provider = 'openai' AND model = 'llama3.1:8b'`); n != 4 {
		t.Fatalf("%d of 4 extracted by the right model", n)
	}
}

// llama.cpp answers to any model name and lists only its own: the probe
// must not pause a stage whose requests succeed.
func TestProbe_ListsOnlyMatterAfterANotFound(t *testing.T) {
	t.Parallel()
	f := newFakeLLM(t, func(int, chatRequest) fakeReply { return answer(validJSON()) })
	f.models = []string{"/models/qwen2.5-7b-instruct-q4_k_m.gguf"}
	p := openai(t, f, func(c *llm.Config) { c.Model = "qwen2.5-7b" })
	if err := p.Probe(context.Background()); err != nil {
		t.Fatalf("probe of a server that answers: %v", err)
	}
}
