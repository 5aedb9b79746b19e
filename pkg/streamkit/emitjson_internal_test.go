package streamkit

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestAppendEmits_RoundTripsThroughEncodingJSON(t *testing.T) {
	tests := []struct {
		name  string
		emits []Emit
	}{
		{"empty fields", []Emit{{Stage: "clean", Fields: map[string]string{}}}},
		{"plain", []Emit{{Stage: "clean", Fields: map[string]string{"doc_id": "d1", "url": "https://x/a?b=c&d=e"}}}},
		{"escapes", []Emit{{Stage: "s\"t", Fields: map[string]string{"q\\": "line\nbreak\ttab\r\x01\x1f</script>"}}}},
		{"unicode", []Emit{{Stage: "extract", Fields: map[string]string{"title": "Zürich – 東京 🚀"}}}},
		{"several", []Emit{{Stage: "a", Fields: map[string]string{"k": "1"}}, {Stage: "b", Fields: map[string]string{"k": "2"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []Emit
			if err := json.Unmarshal(appendEmits(nil, tc.emits), &got); err != nil {
				t.Fatalf("not valid JSON: %v", err)
			}
			if !reflect.DeepEqual(got, tc.emits) {
				t.Fatalf("round trip = %#v, want %#v", got, tc.emits)
			}
		})
	}
}

// FuzzAppendJSONString checks the encoder against encoding/json: the same
// string decodes back from both.
func FuzzAppendJSONString(f *testing.F) {
	f.Add("plain")
	f.Add("\x00\xff\"\\\n")
	f.Fuzz(func(t *testing.T, s string) {
		var got, want string
		if err := json.Unmarshal(appendJSONString(nil, s), &got); err != nil {
			t.Fatalf("invalid JSON for %q: %v", s, err)
		}
		ref, _ := json.Marshal(s)
		json.Unmarshal(ref, &want)
		if got != want {
			t.Fatalf("decoded %q, encoding/json gives %q", got, want)
		}
	})
}
