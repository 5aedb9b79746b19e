package streamkit

import "sync"

// dueWakes lets a producer of this process that puts an entry in a stage's
// retry or deferred set wake this process's promoters of that stream, so a
// promoter with nothing due soon may sleep long and still move a new entry
// on time. Another process's entries wait at most a promoter's idle wait
// (maxPromoteWait), or less: that process's own promoters are woken.
var dueWakes = struct {
	sync.Mutex
	m map[string]map[chan struct{}]bool
}{m: map[string]map[chan struct{}]bool{}}

// listenDue returns a channel that receives when an entry due later is
// added to stream's sets in this process, and a function that stops it.
func listenDue(stream string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	dueWakes.Lock()
	defer dueWakes.Unlock()
	if dueWakes.m[stream] == nil {
		dueWakes.m[stream] = map[chan struct{}]bool{}
	}
	dueWakes.m[stream][ch] = true
	return ch, func() {
		dueWakes.Lock()
		defer dueWakes.Unlock()
		delete(dueWakes.m[stream], ch)
		if len(dueWakes.m[stream]) == 0 {
			delete(dueWakes.m, stream)
		}
	}
}

// dueAdded wakes stream's listeners; one already woken stays so.
func dueAdded(stream string) {
	dueWakes.Lock()
	defer dueWakes.Unlock()
	for ch := range dueWakes.m[stream] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}
