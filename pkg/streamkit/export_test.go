package streamkit

// Internals the black-box tests (package streamkit_test) drive directly.
var (
	Promote     = promote
	Trim        = trim
	PartitionOf = partitionOf
	DefaultKey  = defaultKey
)
