package llm

import (
	"context"
	"net/http"
)

// A recordingDoer is go-openai's HTTP client: it copies each response's
// status and headers into the request's recorder, because go-openai's error
// values do not carry headers (Retry-After).
type recordingDoer struct{ c *http.Client }

// A recorder holds what recordingDoer saw for one request.
type recorder struct {
	status int
	header http.Header
}

type recorderKey struct{}

func withRecorder(ctx context.Context) (context.Context, *recorder) {
	r := &recorder{}
	return context.WithValue(ctx, recorderKey{}, r), r
}

// Do sends req and records the response's status and headers.
func (d recordingDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.c.Do(req)
	if r, ok := req.Context().Value(recorderKey{}).(*recorder); ok && resp != nil {
		r.status = resp.StatusCode
		r.header = resp.Header.Clone()
	}
	return resp, err
}
