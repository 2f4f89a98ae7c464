package mcphost

// Keys of the attributes this package logs: one spelling each, and "err"
// for errors in every package.
const (
	logKeyErr       = "err"
	logKeyFailures  = "failures"
	logKeyPath      = "path"
	logKeyProtocol  = "protocol"
	logKeyServer    = "mcp_server"
	logKeyTool      = "tool"
	logKeyTools     = "tools"
	logKeyTransport = "transport"
	logKeyURL       = "url"
	logKeyUser      = "user"
)
