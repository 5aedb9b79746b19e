package streamkit

import "fmt"

// Keys names the Redis keys of one stage under a prefix.
type Keys struct {
	Prefix string
	Stage  string
}

// KeysFor returns the keys of stage under prefix.
func KeysFor(prefix, stage string) Keys { return Keys{Prefix: prefix, Stage: stage} }

// Stream is the stage's input stream.
func (k Keys) Stream() string { return k.key("stream") }

// Retry is the sorted set of delayed retries, scored by due time (unix ms).
func (k Keys) Retry() string { return k.key("retry") }

// Deferred is the sorted set of deferrals (Later: a handler stepping aside,
// not failing), scored by due time (unix ms); kept apart from Retry so that
// waiting for a host slot is never mistaken for failing.
func (k Keys) Deferred() string { return k.key("deferred") }

// DLQ is the stage's dead-letter stream.
func (k Keys) DLQ() string { return k.key("dlq") }

func (k Keys) key(kind string) string {
	return fmt.Sprintf("%s:{%s}:%s", k.Prefix, k.Stage, kind)
}

// Status is the hash of the stage's consumers' status records, one field
// per consumer (see ConsumerStatus).
func (k Keys) Status() string { return k.key("status") }
