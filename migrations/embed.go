// Package migrations holds the SQL schema of NewsCrawl as goose migrations,
// embedded so every binary can apply them (`newsctl migrate`).
package migrations

import "embed"

// FS holds the numbered *.sql migrations, applied in order by internal/store.
//
//go:embed *.sql
var FS embed.FS
