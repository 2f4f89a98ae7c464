package sqlite

// GlobPattern exposes globPattern to the external tests.
var GlobPattern = globPattern
