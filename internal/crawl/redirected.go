package crawl

import (
	"context"
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

// redirected remembers the pages this process fetched through a redirect,
// and the redirects it is following now. The frontier's check
// (prior.FetchedSince) sees such a page only once the redirect's commit
// lands, which on a loaded machine can be after the page's own link has
// looked and is waiting for the host's turn: checked again at that turn,
// from memory, the page is not fetched a second time. A redirect is
// followed after the host's slot is given back (at the first answer byte),
// so at that turn the page may be on its way through the redirect: the
// turn waits for that fetch to end before it decides.
type redirected struct {
	mu        sync.Mutex
	seen      map[string]time.Time
	following map[string]*followed
}

// followed is a target that fetches are following a redirect to now.
type followed struct {
	fetches int
	over    chan struct{} // closed when the last of them ends
}

// follow records that a fetch is following a redirect to url; end is
// called once that fetch is over, with the URL it got a 2xx at ("" for
// none): url itself means the page was fetched, not a further redirect.
// Another redirect may be on its way to url already (a short link and a
// legacy link to one story): follow then waits for that fetch to end, and
// ok is false if it got the page, which is this redirect's alias then. A
// cancelled wait follows: the fetch fails on the same context.
func (r *redirected) follow(ctx context.Context, url string) (end func(final string), ok bool) {
	for {
		r.mu.Lock()
		if at, got := r.seen[url]; got && time.Since(at) <= redirectedFor {
			r.mu.Unlock()
			return nil, false
		}
		f := r.following[url]
		if f == nil || ctx.Err() != nil {
			defer r.mu.Unlock()
			return r.followLocked(url), true
		}
		r.mu.Unlock()
		select {
		case <-f.over:
		case <-ctx.Done():
		}
	}
}

func (r *redirected) followLocked(url string) (end func(final string)) {
	if r.following == nil {
		r.following = map[string]*followed{}
	}
	f := r.following[url]
	if f == nil {
		f = &followed{over: make(chan struct{})}
		r.following[url] = f
	}
	f.fetches++
	var once sync.Once
	return func(final string) {
		once.Do(func() {
			if final == url {
				r.add(url)
			}
			r.mu.Lock()
			defer r.mu.Unlock()
			if f.fetches--; f.fetches == 0 {
				delete(r.following, url)
				close(f.over)
			}
		})
	}
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

// wait reports whether url was fetched through a redirect lately, first
// waiting for the fetches following a redirect to it now to end (or ctx).
func (r *redirected) wait(ctx context.Context, url string) bool {
	r.mu.Lock()
	f := r.following[url]
	r.mu.Unlock()
	if f != nil {
		select {
		case <-f.over:
		case <-ctx.Done():
		}
	}
	return r.has(url)
}
