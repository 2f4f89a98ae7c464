package app

// Keys of the attributes this package logs: one spelling each, and "err"
// for errors in every package.
const (
	logKeyApprovals = "approvals"
	logKeyComponent = "component"
	logKeyCount     = "count"
	logKeyDir       = "dir"
	logKeyErr       = "err"
	logKeyModel     = "model"
	logKeyOlderThan = "olderThan"
	logKeyServer    = "server"
)
