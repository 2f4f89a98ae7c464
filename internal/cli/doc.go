// Package cli implements the switchboard command line: it parses flags,
// loads the configuration, builds an [app.App] and prints what the user
// asked for. main calls [Run]; tests call it too, with their own [Env].
//
// Exit codes: 0 success; 1 a tool error (`call`) or a failed check
// (`doctor`); 2 usage, configuration or connection errors.
package cli
