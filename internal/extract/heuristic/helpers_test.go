package heuristic_test

import (
	"encoding/json"
	"testing"

	"github.com/newscrawl/newscrawl/internal/extract/schema"
)

func mustJSON(t *testing.T, e schema.Extraction) []byte {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
