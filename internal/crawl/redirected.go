package crawl

import (
	"errors"
	"sync"
	"time"
)

// redirectedFor is how long a redirect's target is remembered; maxRedirected
// bounds how many are.
const (
	redirectedFor = 10 * time.Minute
	maxRedirected = 10000
)

// errReachedByRedirect aborts a fetch whose URL this process has just
// fetched through a redirect.
var errReachedByRedirect = errors.New("fetched through a redirect moments ago")

// redirected remembers the pages this process fetched through a redirect.
// The frontier's check (prior.FetchedSince) sees such a page only once the
// redirect's commit lands, which on a loaded machine can be after the
// page's own link has looked and is waiting for the host's turn: checked
// again at that turn, from memory, the page is not fetched a second time.
type redirected struct {
	mu   sync.Mutex
	seen map[string]time.Time
}

func (r *redirected) add(url string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	if r.seen == nil {
		r.seen = map[string]time.Time{}
	}
	if len(r.seen) >= maxRedirected {
		for u, at := range r.seen {
			if now.Sub(at) > redirectedFor || len(r.seen) >= maxRedirected {
				delete(r.seen, u)
			}
		}
	}
	r.seen[url] = now
}

func (r *redirected) has(url string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	at, ok := r.seen[url]
	return ok && time.Since(at) <= redirectedFor
}
