package agent

// Keys of the attributes this package logs: one spelling each, and "err"
// for errors in every package.
const (
	logKeyAgent        = "agent"
	logKeyErr          = "err"
	logKeyConversation = "conversation"
	logKeyTool         = "tool"
	logKeyServer       = "server"
)
