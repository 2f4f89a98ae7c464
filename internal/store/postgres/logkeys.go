package postgres

// Logging keys of this package.
const (
	logKeyErr   = "err"
	logKeyRetry = "retry"
)
