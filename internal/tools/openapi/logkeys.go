package openapi

// Keys of the attributes this package logs: one spelling each, and "err"
// for errors in every package.
const (
	logKeyErr     = "err"
	logKeyServer  = "openapi_server"
	logKeySkipped = "skipped"
	logKeySpec    = "spec"
	logKeyTools   = "tools"
)
