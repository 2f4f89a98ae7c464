package app

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

func TestServerSandbox(t *testing.T) {
	cfg := config.Default()
	cfg.Source, cfg.Data = "/proj/switchboard.yaml", "/proj/.switchboard"
	cfg.Builtin.Roots = []string{"/proj"}
	on := &config.Sandbox{Enabled: true}
	custom := &config.Sandbox{Enabled: true, Read: []string{"/models"}, Write: []string{}, Network: true, Limits: config.SandboxLimits{Processes: 10}}

	if p := serverSandbox(cfg, config.MCPServer{Command: "x"}); p != nil {
		t.Errorf("with no sandbox anywhere the server is confined: %v", p)
	}
	p := serverSandbox(cfg, config.MCPServer{Command: "x", Cwd: "/srv", Sandbox: on})
	if p == nil || !p.Confine || p.Network {
		t.Fatalf("sandbox: true gave %+v", p)
	}
	// The root is writable, so it is no read path of its own (a server
	// could replace a read path inside a write path).
	if diff := cmp.Diff(append(sandbox.SystemRead(), "/srv"), p.Read); diff != "" {
		t.Errorf("read mismatch (-want +got):\n%s", diff)
	}
	p = serverSandbox(cfg, config.MCPServer{Command: "x", Cwd: "/proj/srv", Sandbox: on})
	if slices.Contains(p.Read, "/proj/srv") || p.Verify() != nil {
		t.Errorf("a cwd inside the write paths: read %v, verify %v; want it left to the write path", p.Read, p.Verify())
	}
	inside := &config.Sandbox{Enabled: true, Read: []string{"/proj/lib"}}
	p = serverSandbox(cfg, config.MCPServer{Command: "x", Sandbox: inside})
	if err := p.Verify(); err == nil || !strings.Contains(err.Error(), "/proj/lib") {
		t.Errorf("a configured read path inside the write paths: verify %v; want it refused by name", err)
	}
	if diff := cmp.Diff([]string{"/proj"}, p.Write); diff != "" {
		t.Errorf("write defaults to the roots (-want +got):\n%s", diff)
	}
	if !slices.Contains(p.Hide, cfg.Data) || !slices.Contains(p.Hide, cfg.Source) || !slices.Contains(p.Hide, "/etc/shadow") {
		t.Errorf("hide %v lacks the data directory, the config file or /etc/shadow", p.Hide)
	}
	if p.Limits != sandbox.DefaultLimits() {
		t.Errorf("limits %+v, want the defaults", p.Limits)
	}

	p = serverSandbox(cfg, config.MCPServer{Command: "x", Sandbox: custom})
	if !slices.Contains(p.Read, "/models") || len(p.Write) != 0 || !p.Network || p.Limits.Processes != 10 || p.Limits.OpenFiles != sandbox.DefaultLimits().OpenFiles {
		t.Errorf("custom sandbox gave %+v", p)
	}

	cfg.Sandbox = config.Sandbox{Enabled: true}
	if p := serverSandbox(cfg, config.MCPServer{Command: "x"}); p == nil {
		t.Error("the top-level default sandbox: true was not applied")
	}
	if p := serverSandbox(cfg, config.MCPServer{Command: "x", Sandbox: &config.Sandbox{}}); p != nil {
		t.Error("a server's sandbox: false did not win over the default")
	}
}

func TestRuntimeServerDefaults(t *testing.T) {
	if !sandbox.Check().Available {
		if got := RuntimeServerDefaults(config.MCPServer{Command: "x"}); got.Sandbox != nil {
			t.Errorf("without a sandbox here a runtime server got sandbox %+v", got.Sandbox)
		}
		return
	}
	off := &config.Sandbox{}
	tests := []struct {
		name string
		s    config.MCPServer
		want *config.Sandbox
	}{
		{"a stdio server with no sandbox is confined", config.MCPServer{Command: "npx"}, &config.Sandbox{Enabled: true}},
		{"sandbox: false is kept", config.MCPServer{Command: "npx", Sandbox: off}, off},
		{"an HTTP server is left alone", config.MCPServer{URL: "http://127.0.0.1:1/mcp"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RuntimeServerDefaults(tt.s)
			if diff := cmp.Diff(tt.want, got.Sandbox); diff != "" {
				t.Errorf("sandbox mismatch (-want +got):\n%s", diff)
			}
			cfg := config.Default()
			if p := serverSandbox(cfg, got); (p != nil) != (tt.want != nil && tt.want.Enabled) {
				t.Errorf("policy %v for sandbox %+v", p, got.Sandbox)
			}
		})
	}
}

func TestConfinedName(t *testing.T) {
	r := t.TempDir()
	at := func(p string) string { return filepath.Join(r, p) }
	for _, d := range []string{"real/pkg", "proj", "venv/bin", "base/bin"} {
		if err := os.MkdirAll(at(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"real/pkg/x", "base/bin/python3.12"} {
		if err := os.WriteFile(at(f), []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"proj/node_modules": at("real"), "venv/bin/python3": at("base/bin/python3.12")} {
		if err := os.Symlink(target, at(link)); err != nil {
			t.Fatal(err)
		}
	}
	p := &sandbox.Policy{Confine: true, Read: []string{at("real"), at("venv"), at("base")}, Write: []string{at("out")}}
	tests := []struct {
		name, cmd, dir, want string
	}{
		{"a name through a directory the sandbox lacks runs by its file", "node_modules/pkg/x", at("proj"), at("real/pkg/x")},
		{"a name the sandbox holds is kept (a venv's python)", at("venv/bin/python3"), "", at("venv/bin/python3")},
		{"a bare name is left to PATH", "node", "", "node"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := confinedName(p, tt.cmd, tt.dir); got != tt.want {
				t.Errorf("confinedName(%q) = %q, want %q", tt.cmd, got, tt.want)
			}
		})
	}
	if got := confinedName(nil, "node_modules/pkg/x", at("proj")); got != "node_modules/pkg/x" {
		t.Errorf("an unconfined command was renamed to %q", got)
	}
}

// TestStoredServerGetsRuntimeDefaults: a stdio server added at run time
// (a stored entry) is confined unless it says otherwise; one from the file
// keeps the file's default.
func TestStoredServerGetsRuntimeDefaults(t *testing.T) {
	got, err := decodeEntry(store.EntryServer, "notes", []byte(`{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}`))
	if err != nil {
		t.Fatal(err)
	}
	s := got.(config.MCPServer)
	if want := sandbox.Check().Available; (s.Sandbox != nil && s.Sandbox.Enabled) != want {
		t.Errorf("stored stdio server sandbox = %+v; want confined = %v (where this system can sandbox)", s.Sandbox, want)
	}
	got, err = decodeEntry(store.EntryServer, "notes", []byte(`{"command": "npx", "sandbox": false}`))
	if err != nil {
		t.Fatal(err)
	}
	if s := got.(config.MCPServer); s.Sandbox == nil || s.Sandbox.Enabled {
		t.Errorf("an explicit sandbox: false became %+v", s.Sandbox)
	}
}
