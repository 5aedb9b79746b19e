// Package streamkit turns Redis Streams' at-least-once delivery into
// effectively-once processing for pipeline stages.
//
// A stage is a Consumer reading one stream with one consumer group. Its
// Handler returns a Result (writes to commit, messages to emit downstream),
// a retryable error, or a Permanent one. streamkit then:
//
//   - keys the work on content (stage:doc_id:content_hash[:version]) in a
//     Postgres ledger, so redeliveries and replays do not redo it;
//   - commits the handler's writes and the ledger row in one transaction,
//     batching many messages per transaction, and XACKs only after commit;
//   - stores the emitted messages in the ledger row and re-sends them when a
//     finished key is redelivered, so a crash between commit and XADD cannot
//     lose a document;
//   - schedules retries in a sorted set with exponential backoff, moves them
//     back with an atomic Lua promoter, and dead-letters after the last
//     attempt or at once for permanent errors;
//   - reclaims entries idle past the stage's visibility, keeps the lease of
//     live handlers, dead-letters poison entries past a delivery ceiling;
//   - bounds in-flight work, pauses reading while the downstream group is
//     over a high-water mark, trims streams only below what every group has
//     finished, and exports Prometheus metrics.
//
// Keys are named <prefix>:{<stage>}:<kind> so everything one Lua script
// touches (a stream, its retry set and its DLQ) lives in one cluster slot.
package streamkit
