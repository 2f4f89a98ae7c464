package app

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/sandbox"
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
	if diff := cmp.Diff(append(sandbox.SystemRead(), "/proj", "/srv"), p.Read); diff != "" {
		t.Errorf("read mismatch (-want +got):\n%s", diff)
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
