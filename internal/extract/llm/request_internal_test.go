package llm

import (
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/newscrawl/newscrawl/internal/extract/provider"
)

func TestProvider_RequestPassesGoOpenAIModelChecks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		model         string
		wantReasoning bool
	}{
		{"llama3.1:8b", false},
		{"qwen2.5-7b-instruct", false},
		{"o3-mini", true},
		{"gpt-5-nano", true},
		{"o4-local-finetune", true},
	}
	for _, tc := range cases {
		t.Run(tc.model, func(t *testing.T) {
			p, err := New(Config{BaseURL: "http://127.0.0.1:1/v1", Model: tc.model})
			if err != nil {
				t.Fatal(err)
			}
			for _, mode := range modeLadder {
				req := p.request(mode, messages(provider.Article{Text: "x"}))
				if err := openai.NewReasoningValidator().Validate(req); err != nil {
					t.Fatalf("mode %s: go-openai would refuse the request: %v", mode, err)
				}
				if tc.wantReasoning != (req.MaxCompletionTokens > 0 && req.MaxTokens == 0 && req.Temperature == 0) {
					t.Fatalf("mode %s: request %+v, reasoning=%v", mode, req, tc.wantReasoning)
				}
				if !tc.wantReasoning && req.Temperature <= 0 {
					t.Fatal("temperature 0 would be omitted by go-openai")
				}
			}
		})
	}
}
