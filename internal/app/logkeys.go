package app

// Keys of the attributes this package logs: one spelling each, and "err"
// for errors in every package.
const (
	logKeyComponent     = "component"
	logKeyCount         = "count"
	logKeyDir           = "dir"
	logKeyErr           = "err"
	logKeyGCPercent     = "gcPercent"
	logKeyMemoryLimitMB = "memoryLimitMB"
	logKeyApprovals     = "approvals"
	logKeyAddr          = "addr"
	logKeyModel         = "model"
	logKeyOlderThan     = "olderThan"
	logKeyServer        = "server"
	logKeyProblems      = "problems"
	logKeyChanges       = "changes"
	logKeyRestart       = "restartFor"
	logKeyFile          = "file"
	logKeyTrigger       = "trigger"
	logKeyUser          = "user"
	logKeyPart          = "part"
	logKeyState         = "state"
)
