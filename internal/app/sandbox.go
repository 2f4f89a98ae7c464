package app

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/sandbox"
)

// serverSandbox is the policy of a stdio server: its own sandbox setting,
// else the top-level default; nil when it runs unconfined. A confined
// server reads the system, the roots, its cwd and its read paths, writes
// its write paths (the roots when it names none), and never sees the data
// directory or the config file.
func serverSandbox(cfg *config.Config, s config.MCPServer) *sandbox.Policy {
	sb := sandboxOf(cfg, s)
	if !sb.Enabled {
		return nil
	}
	write := sb.Write
	if write == nil {
		write = cfg.Builtin.Roots
	}
	// The roots and the cwd are read paths only where no write path holds
	// them already: there the server could replace them, and the sandbox
	// refuses a read path inside a write path. The configured read paths
	// go as they are, so such a mistake is reported, not hidden.
	read := append([]string{}, sandbox.SystemRead()...)
	for _, r := range cfg.Builtin.Roots {
		if !insideAny(r, write) {
			read = append(read, r)
		}
	}
	if s.Cwd != "" && !insideAny(s.Cwd, write) {
		read = append(read, s.Cwd)
	}
	read = append(read, sb.Read...)
	// What the command itself needs (its package, its interpreter, the
	// caches npx and uvx run from) is found rather than listed by hand.
	// A derived path inside a write path is dropped, not refused: the
	// write path already lets the server read it.
	var derived []sandbox.Grant
	for _, g := range sandbox.Derive(s.Command, s.Args, s.Cwd, sandbox.Environ(os.Environ(), s.InheritEnv, s.Env), write) {
		if insideAny(g.Path, write) || insideAny(g.Path, read) {
			continue
		}
		derived = append(derived, g)
		read = append(read, g.Path)
	}
	p := &sandbox.Policy{
		Confine: true,
		Read:    read,
		Derived: derived,
		Write:   append([]string{}, write...),
		Hide:    append(hidden(cfg), sandbox.SystemHide()...),
		Network: sb.Network,
		Limits:  sandboxLimits(sb.Limits),
	}
	// Resolved once, as the configuration is applied: a server restarted
	// by its supervisor runs on the same directories, whatever it did to
	// their names before it exited.
	p.Pin()
	return p
}

// sandboxOf is a server's sandbox setting: its own, else the top-level one.
func sandboxOf(cfg *config.Config, s config.MCPServer) config.Sandbox {
	if s.Sandbox != nil {
		return *s.Sandbox
	}
	return cfg.Sandbox
}

// serverCommand returns s with the command it starts with: as configured,
// except that a confined `npx` of a package npx has installed runs the
// package's script directly (npx itself writes its cache at every start,
// which the sandbox keeps read-only; see [sandbox.InstalledNPX]).
func serverCommand(cfg *config.Config, s config.MCPServer) config.MCPServer {
	if s.Transport() != config.TransportStdio || !sandboxOf(cfg, s).Enabled {
		return s
	}
	write := sandboxOf(cfg, s).Write
	if write == nil {
		write = cfg.Builtin.Roots
	}
	if bin, rest, ok := sandbox.InstalledNPX(s.Command, s.Args, sandbox.Environ(os.Environ(), s.InheritEnv, s.Env), write); ok {
		s.Command, s.Args = bin, rest
	}
	return s
}

// confinedName returns the name a confined command is started by: as
// configured, unless that name leads through a directory the policy does
// not hold (a symlinked node_modules) while the file it resolves to lies
// in a read path. The shim runs the command by name, and inside the
// sandbox such a name does not exist. A name the policy holds is kept, as
// some programs find their installation from it (a Python virtual
// environment's bin/python is a symlink to the base interpreter).
func confinedName(p *sandbox.Policy, name, dir string) string {
	if p == nil || !p.Confine || !strings.Contains(name, "/") {
		return name
	}
	abs := name
	if !filepath.IsAbs(abs) {
		base := dir
		if base == "" {
			base, _ = os.Getwd()
		}
		abs = filepath.Join(absPath(base), name)
	}
	paths := append(append([]string{}, p.Read...), p.Write...)
	if insideLexically(filepath.Dir(abs), paths) {
		return name
	}
	if real := realPath(abs); real != abs && insideLexically(real, p.Read) {
		return real
	}
	return name
}

// insideLexically reports whether path is one of dirs or below one, by
// name only: whether the name exists inside the sandbox as given.
func insideLexically(path string, dirs []string) bool {
	path = filepath.Clean(path)
	for _, d := range dirs {
		if rel, err := filepath.Rel(filepath.Clean(d), path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

// insideAny reports whether path is one of dirs or below one, as named or
// with symlinks resolved: a cwd inside a root that is now a symlink to /
// is still inside the root (and left to it), not a read path for /.
func insideAny(path string, dirs []string) bool {
	for _, p := range []string{absPath(path), realPath(path)} {
		for _, d := range dirs {
			for _, d := range []string{absPath(d), realPath(d)} {
				if rel, err := filepath.Rel(d, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
					return true
				}
			}
		}
	}
	return false
}

func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

func realPath(p string) string {
	p = absPath(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return p
}

// terminalPolicy is what the terminal tool confines its commands to, on
// top of the system and the roots it adds itself.
func terminalPolicy(cfg *config.Config) sandbox.Policy {
	t := cfg.Builtin.Terminal
	return sandbox.Policy{Hide: hidden(cfg), Network: t.Network, Limits: sandboxLimits(t.Limits)}
}

// hidden lists what no sandboxed command may see: the data directory
// (database, OAuth tokens, stored tool outputs), the config file and the
// trust records, where the config puts them. Where they are at each start
// (after a parent was renamed) comes from internal/protect, through
// Policy.Protected (see protect.go).
func hidden(cfg *config.Config) []string {
	var out []string
	for _, p := range append([]string{cfg.Data, cfg.Source}, cfg.TrustDirs...) {
		if p == "" {
			continue
		}
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		out = append(out, p)
	}
	return out
}

// sandboxLimits fills the zero fields of l with the sandbox's defaults.
func sandboxLimits(l config.SandboxLimits) sandbox.Limits {
	d := sandbox.DefaultLimits()
	if l.Processes > 0 {
		d.Processes = l.Processes
	}
	if l.OpenFiles > 0 {
		d.OpenFiles = l.OpenFiles
	}
	if l.Memory > 0 {
		d.Memory = l.Memory
	}
	d.CPUTime = l.CPUTime
	return d
}

// TerminalSandbox describes how the terminal tool confines its commands
// under cfg on this system, for `servers` and `doctor`.
func TerminalSandbox(cfg *config.Config) string {
	s := sandbox.Check()
	switch {
	case cfg.Builtin.Terminal.Sandbox == config.SandboxOff:
		return "off (builtin.terminal.sandbox: off)"
	case !s.Available && cfg.Builtin.Terminal.Sandbox == config.SandboxRequired:
		return "required but unavailable, every call fails: " + s.Reason
	case !s.Available:
		return "off, unavailable here: " + s.Reason
	}
	p := terminalPolicy(cfg)
	p.Confine = true
	p.Read = append(sandbox.SystemRead(), cfg.Builtin.Roots...)
	p.Write = cfg.Builtin.Roots
	return p.String()
}

// RuntimeServerDefaults returns s, a server added while Switchboard runs
// (through the REST API, `switchboard servers add` or the web UI), with
// the defaults such a server gets: a stdio server that says nothing about
// its sandbox is confined, as if it said `sandbox: true`, wherever this
// system can sandbox; the paths its command needs (its package, its
// interpreter, npm's and uv's caches read-only) are derived when the
// configuration is applied. An explicit `sandbox: false` (or any sandbox
// setting) is kept: the admin chose it. HTTP and SSE servers, and every
// server where the kernel cannot sandbox, are returned as they are (the
// top-level `sandbox` default then applies, as for servers in the file).
//
// Servers in the configuration file keep the top-level default (`false`):
// a file written by a person who can run any command already is not made
// to fail on upgrade. See docs/SECURITY.md, "Defaults".
func RuntimeServerDefaults(s config.MCPServer) config.MCPServer {
	if s.Transport() != config.TransportStdio || s.Sandbox != nil || !sandbox.Check().Available {
		return s
	}
	s.Sandbox = &config.Sandbox{Enabled: true}
	return s
}
