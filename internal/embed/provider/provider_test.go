package provider_test

import (
	"flag"
	"testing"

	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/embed/provider"
)

// One model per server (vLLM, llama-server): the embedding model's own
// EMBED_BASE_URL selects the OpenAI-compatible embedder on its own.
func TestBind_EmbedBaseURLSelectsTheServer(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{args: nil, want: "local"},
		{args: []string{"-embed-base-url", "http://127.0.0.1:8001/v1", "-embed-model", "bge-m3", "-embed-dimensions", "1024"}, want: "openai"},
		{args: []string{"-openai-base-url", "http://127.0.0.1:8000/v1", "-embed-model", "bge-m3", "-embed-dimensions", "1024"}, want: "openai"},
	} {
		s := config.NewSet(flag.NewFlagSet("t", flag.ContinueOnError))
		build := provider.Bind(s, config.BindOpenAI(s))
		if err := s.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		e, err := build()
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if got := e.Identity().Provider; got != tc.want {
			t.Errorf("%v: provider %s, want %s", tc.args, got, tc.want)
		}
	}
}
