package gate

// Keys of the attributes this package logs.
const (
	logKeyErr  = "err"
	logKeyTool = "tool"
	// logKeyServer names an upstream server.
	logKeyServer = "server"
)
