package mcphost

import "time"

// State is where a server's supervisor is in its life cycle.
type State string

const (
	// StateStarting: the first connect attempt is under way.
	StateStarting State = "starting"
	// StateReady: connected; the server's tools are in the catalogue.
	StateReady State = "ready"
	// StateRestarting: the connection failed and the supervisor is waiting
	// out its backoff or reconnecting. The server's tools are withdrawn.
	StateRestarting State = "restarting"
	// StateFailed: too many failures within the restart window; the
	// supervisor gave up until [Pool.Restart].
	StateFailed State = "failed"
	// StateDisabled: the configuration cannot work (no command and no URL,
	// unknown transport); nothing was started.
	StateDisabled State = "disabled"
	// StateStopped: the pool was closed.
	StateStopped State = "stopped"
)

// Status is a snapshot of one server, for `switchboard servers` and the UI.
type Status struct {
	Name      string
	Transport Transport
	// ProtocolVersion is the negotiated version; "" until connected.
	ProtocolVersion string
	State           State
	// Tools counts the server's tools after Allow/Deny; 0 unless ready.
	Tools int
	// LastError says why the last connect attempt or connection failed.
	LastError string
	// Restarts counts reconnects since the pool started.
	Restarts int
	// Instructions is what the server said about how to use it.
	Instructions  string
	ServerName    string
	ServerVersion string
	// PID is the process id of the running stdio server (with a sandbox,
	// of its shim); 0 otherwise.
	PID int
	// Sandbox describes a stdio server's sandbox ("off" without one) and
	// is "" for remote servers.
	Sandbox string
	// SandboxPaths are the read paths derived from a confined stdio
	// server's command, one line each with why it is there.
	SandboxPaths []string
	// Stderr holds the last lines the stdio server wrote to stderr, oldest
	// first, and the lines on its stdout that were not JSON-RPC, marked
	// "[stdout] ".
	Stderr []string
	// NonProtocolLines counts the lines the stdio server wrote to stdout
	// that were not JSON-RPC (a banner, a stray console.log): they were
	// skipped, as the TypeScript and Python SDK clients skip them.
	NonProtocolLines int64
	// Roots are the roots offered to the server (file:// URIs); empty means
	// no roots capability was advertised. RootsRequests counts how often
	// the server asked for them (roots/list).
	Roots         []string
	RootsRequests int64
	// Since is when State last changed.
	Since time.Time
}
