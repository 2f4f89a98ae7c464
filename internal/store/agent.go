package store

import "time"

// Agent sources.
const (
	// SourceConfig marks an agent loaded from the configuration file; app
	// rewrites such agents at start-up.
	SourceConfig = "config"
	// SourceRuntime marks an agent created through the API or UI.
	SourceRuntime = "runtime"
)

// Agent is a named agent: its own model, prompt and tool servers.
type Agent struct {
	// Name is the agent's unique name (the word after @ in a mention).
	Name        string
	Description string
	// Model names a configured model.
	Model  string
	Prompt string
	// Servers lists the tool servers the agent may use. nil means every
	// server; an empty, non-nil slice means none. The store keeps the
	// difference.
	Servers []string
	// Router says when the "does this need tools?" pre-check runs:
	// "off", "auto" or "always"; empty means auto.
	Router string
	// Source is SourceConfig or SourceRuntime; empty is stored as
	// SourceRuntime.
	Source    string
	CreatedAt time.Time
	UpdatedAt time.Time
	// Version is 1 after CreateAgent and grows by one with every change.
	// UpdateAgent succeeds only when it is given the current Version.
	Version int64
}

// Validate reports whether a can be stored, as an [ErrInvalid] error.
func (a *Agent) Validate() error {
	if a.Name == "" {
		return invalidf("agent name is empty")
	}
	switch a.Source {
	case "", SourceConfig, SourceRuntime:
	default:
		return invalidf("agent %q: source %q is neither %q nor %q", a.Name, a.Source, SourceConfig, SourceRuntime)
	}
	for _, s := range a.Servers {
		if s == "" {
			return invalidf("agent %q: empty server name in servers", a.Name)
		}
	}
	return nil
}
