package mcphost

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/mcphost/stdio"
	"github.com/switchboard-mcp/switchboard/internal/redact"
	"github.com/switchboard-mcp/switchboard/internal/sandbox"
)

// Step is one check of [Diagnose].
type Step struct {
	Name     string
	OK       bool
	Skipped  bool   // not run, because an earlier step failed or it does not apply
	Err      string // what went wrong, when !OK && !Skipped
	Warning  string // what is wrong but tolerated, when OK
	Hint     string // what to do about the error or warning
	Detail   string // what was found, when OK
	Duration time.Duration
}

// Report is the outcome of [Diagnose]: each check in order, then what the
// server said about itself when it got that far.
type Report struct {
	Server          string
	Transport       Transport
	Steps           []Step
	OK              bool // every step that ran passed
	ProtocolVersion string
	ServerName      string
	ServerVersion   string
	Instructions    string
	Tools           []string
	Stderr          []string
	// Roots are the MCP roots offered to the server (file:// URIs); empty
	// means none were, and the roots capability was not advertised.
	// RootsRequests counts the server's roots/list calls during the check.
	Roots         []string
	RootsRequests int64
	// NonProtocolLines counts lines on stdout that were not JSON-RPC, seen
	// during the check; they are skipped, and in Stderr marked [stdout].
	NonProtocolLines int64
	// Sandbox describes a stdio server's sandbox ("off" without one).
	Sandbox string
	// SandboxPaths are the read paths derived from the command (its
	// package, interpreter, caches), one line each with why it is there.
	SandboxPaths []string
	// Env names the environment variables a stdio server gets; never
	// their values.
	Env []string
}

// Diagnose checks one server the way `switchboard doctor` shows it: for
// stdio, that the command is on PATH, that the process starts, answers
// initialize and writes only JSON-RPC to stdout; then, for every transport,
// that the SDK connects, lists tools and (where the protocol has it)
// answers ping. Each step has its duration, its error and a hint. It never
// takes longer than about twice opts.ConnectTimeout, and leaves no process
// behind.
func Diagnose(ctx context.Context, sc ServerConfig, opts *Options) *Report {
	o := opts.withDefaults()
	o.OnToolsChanged, o.OnStatus = nil, nil
	r := &Report{Server: sc.Name, Transport: sc.transport(), OK: true, Roots: rootURIs(sc.Roots)}
	s := newServer(sc, &o, &stdio.Buffers{})
	failed := false
	step := func(name string, f func() (detail string, hint string, err error)) {
		st := Step{Name: name}
		if failed {
			st.Skipped = true
			r.Steps = append(r.Steps, st)
			return
		}
		start := time.Now()
		detail, hint, err := f()
		st.Duration = time.Since(start)
		var w warning
		switch {
		case errors.As(err, &w):
			st.OK, st.Detail, st.Warning, st.Hint = true, detail, w.msg, hint
		case errors.Is(err, errSkip):
			st.Skipped, st.Detail = true, detail
		case err != nil:
			st.Err, st.Hint = err.Error(), hint
			failed, r.OK = true, false
		default:
			st.OK, st.Detail = true, detail
		}
		r.Steps = append(r.Steps, st)
	}

	step("configuration", func() (string, string, error) { return checkConfig(&sc) })
	if sc.transport() == TransportStdio {
		r.Sandbox, r.SandboxPaths, r.Env = sc.Sandbox.String(), sc.Sandbox.Details(), sc.EnvNames()
		step("command on PATH", func() (string, string, error) { return checkCommand(sc.Command) })
		if sc.Sandbox != nil && sc.Sandbox.Confine {
			step("sandbox available", func() (string, string, error) { return checkSandbox() })
			step("sandbox paths", func() (string, string, error) {
				if err := sc.Sandbox.Verify(); err != nil {
					return "", "fix the server's sandbox read and write paths (mcpServers." + sc.Name + ".sandbox)", err
				}
				return "unchanged since the configuration was loaded", "", nil
			})
		}
		step("process answers initialize", func() (string, string, error) {
			d, h, err := probeStdio(ctx, &sc, o.ConnectTimeout, s.stderr)
			return d, h, explainSandbox(&sc, s.stderr.Lines(), err)
		})
	} else {
		step("server reachable", func() (string, string, error) { return checkReachable(ctx, sc.URL, o.ConnectTimeout) })
	}
	var c *conn
	step("connects", func() (string, string, error) {
		var err error
		c, err = s.dial(ctx)
		if err != nil {
			return "", connectHint(&sc, err), err
		}
		if ir := c.cs.InitializeResult(); ir != nil {
			r.ProtocolVersion, r.Instructions = ir.ProtocolVersion, ir.Instructions
			if ir.ServerInfo != nil {
				r.ServerName, r.ServerVersion = ir.ServerInfo.Name, ir.ServerInfo.Version
			}
		}
		return fmt.Sprintf("protocol %s over %s, server %s %s", r.ProtocolVersion, c.transport, r.ServerName, r.ServerVersion), "", nil
	})
	if c != nil {
		defer c.close()
	}
	step("lists tools", func() (string, string, error) {
		lctx, cancel := context.WithTimeout(ctx, o.ConnectTimeout)
		defer cancel()
		ts, err := s.listTools(lctx, c)
		if err != nil {
			return "", "the server connected but tools/list failed; check its stderr", err
		}
		for _, t := range ts {
			r.Tools = append(r.Tools, t.Info().Name)
		}
		if len(ts) == 0 {
			return "no tools (check the server's arguments, and Allow/Deny)", "", nil
		}
		return fmt.Sprintf("%d tools", len(ts)), "", nil
	})
	step("answers ping", func() (string, string, error) {
		if !c.hasPing() {
			return "protocol " + c.protocolVersion() + " has no ping", "", errSkip
		}
		pctx, cancel := context.WithTimeout(ctx, o.ConnectTimeout)
		defer cancel()
		if err := c.cs.Ping(pctx, nil); err != nil {
			return "", "the server does not answer ping; Switchboard would restart it after each failed health check (set a negative ping interval to disable)", err
		}
		return "", "", nil
	})
	r.Stderr = s.stderr.Lines()
	r.RootsRequests = s.rootsAsked.Load()
	r.NonProtocolLines = s.noiseLines.Load()
	return r
}

var errSkip = errors.New("skipped")

// warning is a step's finding that is wrong but tolerated: the step passes
// and says so.
type warning struct{ msg string }

func (w warning) Error() string { return w.msg }

func checkConfig(sc *ServerConfig) (string, string, error) {
	switch tr := sc.transport(); tr {
	case TransportStdio:
		if sc.Command == "" {
			return "", "set command (and args) for a stdio server", errors.New("no command")
		}
		return "stdio: " + strings.Join(append([]string{sc.Command}, redact.Args(sc.Args)...), " "), "", nil
	case TransportHTTP, TransportSSE, TransportAuto:
		if sc.URL == "" {
			return "", "set url for a remote server, or command for a local one", errors.New("no url and no command")
		}
		u, err := url.Parse(sc.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", "the url must look like https://host/path", fmt.Errorf("url %q is not an http(s) url", redact.URL(sc.URL))
		}
		name := string(tr)
		if tr == TransportAuto {
			name = "streamable http, falling back to sse"
		}
		return name + ": " + redact.URL(sc.URL), "", nil
	default:
		return "", `transport must be "stdio", "http", "sse" or empty`, fmt.Errorf("unknown transport %q", tr)
	}
}

func checkCommand(command string) (string, string, error) {
	p, err := exec.LookPath(command)
	if err != nil {
		hint := "install it, or give its full path"
		switch filepath.Base(command) {
		case "npx", "node", "npm":
			hint = "install Node.js (it provides npx), or give the full path to npx"
		case "uvx", "uv":
			hint = "install uv (https://docs.astral.sh/uv/), which provides uvx"
		case "docker":
			hint = "install Docker and make sure the daemon is running"
		case "python", "python3":
			hint = "install Python 3, or point command at the interpreter of your virtualenv"
		}
		return "", hint, fmt.Errorf("command %q not found: %w", command, err)
	}
	return p, "", nil
}

func checkSandbox() (string, string, error) {
	sp := sandbox.Check()
	if !sp.Available {
		return "", "set sandbox: false for this server, or run Switchboard where the kernel offers Landlock and user namespaces", errors.New(sp.Reason)
	}
	return fmt.Sprintf("Landlock ABI %d, user namespaces", sp.LandlockABI), "", nil
}

func checkReachable(ctx context.Context, u string, timeout time.Duration) (string, string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", "", err
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", "check the host and port, and that the server is running", err
	}
	resp.Body.Close()
	return "HTTP " + resp.Status, "", nil
}

// connectHint suggests a fix for a failed connect.
func connectHint(sc *ServerConfig, err error) string {
	switch {
	case errors.Is(err, ErrNeedsLogin):
		return "log in to the server (OAuth) first"
	case errors.Is(err, errConnectTimeout):
		return "the server did not finish the handshake in time; first runs of npx/uvx download packages, so try again or raise the connect timeout"
	case sc.transport() == TransportStdio:
		return "run the command by hand and read its stderr (below)"
	case sc.Transport == TransportHTTP:
		return "check the url path (often /mcp); for a legacy server try transport sse (often /sse)"
	default:
		return "check the url, the headers and any credentials the server needs"
	}
}
