package extract_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"
	"time"
)

// A fakeLLM is an in-process OpenAI-compatible server whose answers the test
// scripts: reply(n, req) decides the n-th (0-based) chat completion.
type fakeLLM struct {
	srv    *httptest.Server
	reply  func(n int, req chatRequest) fakeReply
	models []string // served at /v1/models when set

	mu      sync.Mutex
	reqs    []chatRequest
	running map[string]int // requests in progress per document named in the prompt
	overlap int            // requests that arrived while one for the same document ran
}

// chatRequest is what the fake server saw of one request.
type chatRequest struct {
	Model          string         `json:"model"`
	Messages       []chatMessage  `json:"messages"`
	Temperature    *float64       `json:"temperature"`
	MaxTokens      int            `json:"max_tokens"`
	ResponseFormat *responseFmt   `json:"response_format"`
	Tools          []any          `json:"tools"`
	Raw            map[string]any `json:"-"`
	At             time.Time      `json:"-"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type responseFmt struct {
	Type       string `json:"type"`
	JSONSchema *struct {
		Name   string          `json:"name"`
		Strict bool            `json:"strict"`
		Schema json.RawMessage `json:"schema"`
	} `json:"json_schema"`
}

func (r chatRequest) format() string {
	if r.ResponseFormat == nil {
		return "text"
	}
	return r.ResponseFormat.Type
}

// A fakeReply is one scripted answer.
type fakeReply struct {
	status  int               // default 200
	header  map[string]string // extra headers
	errMsg  string            // error message for status ≥ 400
	content string            // assistant message content
	finish  string            // default "stop"
	delay   time.Duration     // wait before answering (aborted when the client goes away)
}

func answer(content string) fakeReply { return fakeReply{content: content} }

func newFakeLLM(t *testing.T, reply func(n int, req chatRequest) fakeReply) *fakeLLM {
	t.Helper()
	f := &fakeLLM{reply: reply}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// URL is the base URL to configure (…/v1).
func (f *fakeLLM) URL() string { return f.srv.URL + "/v1" }

// Requests returns a copy of the requests received so far.
func (f *fakeLLM) Requests() []chatRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]chatRequest(nil), f.reqs...)
}

var docMarker = regexp.MustCompile(`\bdoc\d+\b`)

// docOf names the document a request is about (its text says "docN").
func (r chatRequest) docOf() string {
	for _, m := range r.Messages {
		if d := docMarker.FindString(m.Content); d != "" {
			return d
		}
	}
	return ""
}

func (f *fakeLLM) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/v1/models" && f.models != nil {
		var data []map[string]any
		for _, m := range f.models {
			data = append(data, map[string]any{"id": m, "object": "model", "owned_by": "test"})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
		return
	}
	if r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":{"message":"bad json","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	_ = json.Unmarshal(body, &req.Raw)
	req.At = time.Now()
	doc := req.docOf()
	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, req)
	if f.running == nil {
		f.running = map[string]int{}
	}
	if doc != "" {
		if f.running[doc] > 0 {
			f.overlap++
		}
		f.running[doc]++
	}
	f.mu.Unlock()
	defer func() { f.mu.Lock(); f.running[doc]--; f.mu.Unlock() }()

	rep := f.reply(n, req)
	if rep.delay > 0 {
		select {
		case <-time.After(rep.delay):
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	if rep.status >= 400 {
		w.WriteHeader(rep.status)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error","code":null}}`, rep.errMsg)
		return
	}
	finish := rep.finish
	if finish == "" {
		finish = "stop"
	}
	resp := map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish,
			"message": map[string]any{"role": "assistant", "content": rep.content}}},
		"usage": map[string]any{"prompt_tokens": 900 + n, "completion_tokens": 120, "total_tokens": 1020 + n},
	}
	_ = json.NewEncoder(w).Encode(resp)
}
