package rank

// Keys of the attributes this package logs: one spelling each, and "err"
// for errors in every package.
const (
	logKeyErr  = "err"
	logKeyPath = "path"
)
