package retryafter

import (
	"net/http"
	"testing"
	"time"
)

func TestParse_HeaderForms(t *testing.T) {
	now := time.Date(2024, 3, 5, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		header http.Header
		want   time.Duration
		ok     bool
	}{
		{"seconds", http.Header{"Retry-After": {"7"}}, 7 * time.Second, true},
		{"fractional seconds", http.Header{"Retry-After": {"0.2"}}, 200 * time.Millisecond, true},
		{"milliseconds first", http.Header{"Retry-After-Ms": {"1500"}, "Retry-After": {"2"}}, 1500 * time.Millisecond, true},
		{"http date", http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second, true},
		{"date in the past", http.Header{"Retry-After": {now.Add(-time.Hour).Format(http.TimeFormat)}}, 0, true},
		{"missing", http.Header{}, 0, false},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0, false},
		{"negative", http.Header{"Retry-After": {"-5"}}, 0, false},
	}
	for _, tc := range cases {
		if d, ok := Parse(tc.header, now); d != tc.want || ok != tc.ok {
			t.Errorf("%s: %s %v, want %s %v", tc.name, d, ok, tc.want, tc.ok)
		}
	}
	if d := Or(http.Header{"Retry-After": {"86400"}}, now, time.Second, 10*time.Minute); d != 10*time.Minute {
		t.Errorf("a day's Retry-After is %s, want the 10m ceiling", d)
	}
	if d := Or(http.Header{}, now, 5*time.Second, time.Minute); d != 5*time.Second {
		t.Errorf("no header: %s, want the default", d)
	}
}
