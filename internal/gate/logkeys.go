package gate

// Keys of the attributes this package logs.
const (
	logKeyErr  = "err"
	logKeyTool = "tool"
)
