package store

// NonNil returns s, or an empty slice for nil: pgx writes a nil slice as
// NULL, which a NOT NULL array column refuses (and JSON shows as null).
func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
