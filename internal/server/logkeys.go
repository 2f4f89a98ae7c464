package server

// Keys of the attributes this package logs: one spelling each, and "err"
// for errors in every package.
const (
	logKeyErr       = "err"
	logKeyStatus    = "status"
	logKeyRequestID = "request_id"
	logKeyMethod    = "method"
	logKeyRoute     = "route"
	logKeyUser      = "user"
	logKeyDuration  = "duration"
	logKeyRun       = "run"
	// logKeyOAuthClient and logKeyGrant name an OAuth client and grant.
	logKeyOAuthClient = "oauth_client"
	logKeyGrant       = "grant"
)
