package pipeline_test

import (
	"testing"

	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// A stage's key reads its hash field and, in a message from before the
// rename, content_hash, giving both the same key.
func TestHashKey_ReadsTheNewFieldAndTheOld(t *testing.T) {
	tests := []struct {
		name    string
		field   string
		fields  map[string]string
		wantKey string
		wantBad bool
	}{
		{name: "new field", field: pipeline.FieldTextHash,
			fields:  map[string]string{"doc_id": "d", "text_hash": "t"},
			wantKey: "embed:d:t:m@3"},
		{name: "old field only", field: pipeline.FieldTextHash,
			fields:  map[string]string{"doc_id": "d", "content_hash": "t"},
			wantKey: "embed:d:t:m@3"},
		{name: "both: the new one wins", field: pipeline.FieldTextHash,
			fields:  map[string]string{"doc_id": "d", "text_hash": "t", "content_hash": "other"},
			wantKey: "embed:d:t:m@3"},
		{name: "another stage's field is not read", field: pipeline.FieldTextHash,
			fields:  map[string]string{"doc_id": "d", "body_hash": "b"},
			wantBad: true},
		{name: "no hash", field: pipeline.FieldBodyHash,
			fields:  map[string]string{"doc_id": "d"},
			wantBad: true},
		{name: "no doc_id", field: pipeline.FieldBodyHash,
			fields:  map[string]string{"body_hash": "b"},
			wantBad: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &streamkit.Message{ID: "1-1", Fields: tc.fields}
			got, err := pipeline.HashKey(tc.field)(pipeline.Embed, "m@3", m)
			if tc.wantBad {
				if !streamkit.IsPermanent(err) || streamkit.ErrorType(err) != streamkit.ErrorTypeBadMessage {
					t.Fatalf("key %q, err %v; want a bad message", got, err)
				}
				return
			}
			if err != nil || got != tc.wantKey {
				t.Fatalf("key %q, err %v; want %q", got, err, tc.wantKey)
			}
		})
	}
}

func TestHashField_OfEachStage(t *testing.T) {
	for stage, want := range map[string]string{pipeline.Crawl: "", pipeline.Clean: "body_hash",
		pipeline.Extract: "text_hash", pipeline.Embed: "text_hash"} {
		if got := pipeline.HashField(stage); got != want {
			t.Errorf("HashField(%s) = %q, want %q", stage, got, want)
		}
	}
}

// TextHash ignores case and runs of white space, as the cleaner's exact
// duplicate test always did; BodyHash is of the bytes.
func TestTextHash_Normalises(t *testing.T) {
	if pipeline.TextHash("The  Council\napproved") != pipeline.TextHash("the council approved") {
		t.Error("TextHash differs for texts that differ only in case and spacing")
	}
	if pipeline.BodyHash([]byte("A b")) == pipeline.BodyHash([]byte("a  b")) {
		t.Error("BodyHash is the same for different bodies")
	}
}
