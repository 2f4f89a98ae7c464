package mcphost

import "path"

// allowed reports whether a tool name passes the server's Allow and Deny
// globs: an empty allow list allows everything, and deny wins. A malformed
// pattern matches nothing, so a typo in Deny never hides everything and a
// typo in Allow never exposes everything.
func allowed(name string, allow, deny []string) bool {
	for _, p := range deny {
		if ok, _ := path.Match(p, name); ok {
			return false
		}
	}
	if len(allow) == 0 {
		return true
	}
	for _, p := range allow {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}
