package app

import (
	"maps"
	"slices"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// ServerStatus is one source of tools as `switchboard servers` shows it:
// an MCP server, an OpenAPI action server, or the built-in tools.
type ServerStatus struct {
	Name            string     `json:"name"`
	Kind            tools.Kind `json:"kind"`
	Transport       string     `json:"transport,omitempty"`
	ProtocolVersion string     `json:"protocolVersion,omitempty"`
	State           string     `json:"state"`
	Tools           int        `json:"tools"`
	LastError       string     `json:"lastError,omitempty"`
	Restarts        int        `json:"restarts,omitempty"`
	Instructions    string     `json:"instructions,omitempty"`
	Server          string     `json:"server,omitempty"` // what the server calls itself, with version
	Stderr          []string   `json:"stderr,omitempty"`
	Since           time.Time  `json:"since,omitzero"`
	// NonProtocolLines counts the lines an MCP server wrote to stdout
	// that were not JSON-RPC; they were skipped (and are in Stderr, marked
	// [stdout]).
	NonProtocolLines int64 `json:"nonProtocolLines,omitempty"`
	// Roots are the MCP roots offered to the server (file:// URIs); none
	// means no roots capability. RootsRequests counts its roots/list calls.
	Roots         []string `json:"roots,omitempty"`
	RootsRequests int64    `json:"rootsRequests,omitempty"`
	// Sandbox describes how a stdio server, or the terminal tool for the
	// built-ins, is confined: "off", or its read and write paths and
	// network; "" for remote servers.
	Sandbox string `json:"sandbox,omitempty"`
	// SandboxPaths are the read paths derived from a confined stdio
	// server's command (its package, interpreter, caches), each with why.
	SandboxPaths []string `json:"sandboxPaths,omitempty"`
}

// Servers reports every configured source of tools in a stable order:
// the built-ins, then MCP servers, then OpenAPI servers, each by name.
// Disabled servers and servers not selected by [Options.Only] appear with
// state "disabled" or "not started".
func (a *App) Servers() []ServerStatus {
	var out []ServerStatus
	cfg := a.config()
	bt := ServerStatus{Name: gate.BuiltinServer, Kind: tools.KindBuiltin, State: "ready", Sandbox: "terminal: " + TerminalSandbox(a.cfg)}
	if a.builtinErr != nil {
		bt.State, bt.LastError = "failed", a.builtinErr.Error()
	}
	for _, e := range a.registry.List() {
		if e.Origin.Kind == tools.KindBuiltin {
			bt.Tools++
		}
	}
	out = append(out, bt)

	running := map[string]mcphost.Status{}
	for _, st := range a.pool.Status() {
		running[st.Name] = st
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.MCPServers)) {
		sc := cfg.MCPServers[name]
		st, ok := running[name]
		if !ok {
			s := ServerStatus{Name: name, Kind: tools.KindMCP, Transport: string(sc.Transport()), State: "not started"}
			if sc.Disabled {
				s.State = "disabled"
			}
			out = append(out, s)
			continue
		}
		s := ServerStatus{
			Name:            name,
			Kind:            tools.KindMCP,
			Transport:       string(st.Transport),
			ProtocolVersion: st.ProtocolVersion,
			State:           string(st.State),
			Tools:           st.Tools,
			LastError:       st.LastError,
			Restarts:        st.Restarts,
			Instructions:    st.Instructions,
			Stderr:          st.Stderr,
			Sandbox:         st.Sandbox,
			SandboxPaths:    st.SandboxPaths,
			Since:           st.Since,

			NonProtocolLines: st.NonProtocolLines,
			Roots:            st.Roots,
			RootsRequests:    st.RootsRequests,
		}
		if s.Transport == "" {
			s.Transport = string(sc.Transport())
		}
		if st.ServerName != "" {
			s.Server = st.ServerName + " " + st.ServerVersion
		}
		out = append(out, s)
	}

	loaded := map[string]bool{}
	for _, srv := range a.openapiServers() {
		st := srv.Status()
		loaded[st.Name] = true
		out = append(out, ServerStatus{
			Name:      st.Name,
			Kind:      tools.KindOpenAPI,
			Transport: "openapi",
			State:     string(st.State),
			Tools:     st.Tools,
			LastError: st.LastError,
			Since:     st.LoadedAt,
		})
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.OpenAPIServers)) {
		if loaded[name] {
			continue
		}
		s := ServerStatus{Name: name, Kind: tools.KindOpenAPI, Transport: "openapi", State: "not started"}
		if cfg.OpenAPIServers[name].Disabled {
			s.State = "disabled"
		}
		out = append(out, s)
	}
	// What the servers printed and their errors quote URLs and command
	// lines: shown by `servers`, doctor and /api/v1/servers, so redacted
	// once here for all of them.
	for i := range out {
		out[i].LastError = a.secrets.Text(out[i].LastError)
		lines := make([]string, len(out[i].Stderr)) // not in place: the slice may be the host's
		for j, l := range out[i].Stderr {
			lines[j] = a.secrets.Text(l)
		}
		if out[i].Stderr != nil {
			out[i].Stderr = lines
		}
	}
	return out
}
