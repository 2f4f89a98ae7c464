package chat

// Keys of the attributes this package logs: one spelling each, and "err"
// for errors in every package.
const (
	logKeyTool = "tool"
	logKeyErr  = "err"
)
