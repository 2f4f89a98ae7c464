package textcall

// Keys of the attributes this package logs: one spelling each, and "err"
// for errors in every package.
const (
	logKeyErr     = "err"
	logKeyListed  = "listed"
	logKeyModel   = "model"
	logKeyOmitted = "omitted"
	logKeyShown   = "shown"
	logKeyTokens  = "tokens"
)
