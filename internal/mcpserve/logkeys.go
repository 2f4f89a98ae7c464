package mcpserve

// Keys of the attributes this package logs.
const (
	logKeyTool    = "tool"
	logKeyErr     = "err"
	logKeyStatus  = "status"
	logKeyBody    = "body"
	logKeySession = "session"
)
