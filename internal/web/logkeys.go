package web

// Keys of the attributes this package logs: one spelling each, and "err"
// for errors in every package.
const (
	logKeyErr  = "err"
	logKeyPage = "page"
)
