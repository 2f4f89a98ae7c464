package pin

// Keys of the attributes this package logs.
const (
	logKeyErr    = "err"
	logKeyServer = "server"
	logKeyTool   = "tool"
	logKeyHash   = "hash"
)
