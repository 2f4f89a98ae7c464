package gate

import "path"

// Caller is who makes a tool call, as the surface authenticated it. The
// gate decides by what the caller is (its ID and its permission globs),
// never by its name: a stored user may be named anything, "local"
// included.
type Caller struct {
	// ID is the store's user ID; "" for the local user (stdio, or the
	// anonymous user of a loopback service without users).
	ID string
	// Name is for messages and logs only.
	Name string
	// Permissions are tool-name globs ([path.Match] syntax). Nil means
	// every tool, and only the local user has nil: a stored user without
	// permissions has an empty, non-nil list and may call nothing.
	Permissions []string
}

// Local is the caller of stdio MCP and of an anonymous loopback service:
// the person who started Switchboard, who may call every tool.
func Local(name string) Caller { return Caller{Name: name} }

// Unrestricted reports whether c may call every tool.
func (c *Caller) Unrestricted() bool { return c.Permissions == nil }

// Permits reports whether c's permission globs cover the catalogue tool
// name. A malformed glob matches nothing.
func (c *Caller) Permits(name string) bool {
	if c.Permissions == nil {
		return true
	}
	for _, g := range c.Permissions {
		if ok, err := path.Match(g, name); err == nil && ok {
			return true
		}
	}
	return false
}

// AuditUser is the user an audit record names for c. Audit records,
// conversations and their filters key on the unique user name, so the
// record carries the name; a caller without one is [LocalUser].
func (c *Caller) AuditUser() string {
	if c.Name == "" {
		return LocalUser
	}
	return c.Name
}

// LocalUser is the audit user of the local caller.
const LocalUser = "local"
