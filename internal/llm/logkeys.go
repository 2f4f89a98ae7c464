package llm

// Keys of the attributes this package logs: one spelling each, and "err"
// for errors in every package.
const (
	logKeyAttempt  = "attempt"
	logKeyErr      = "err"
	logKeyProvider = "provider"
	logKeyWait     = "wait"
)
