package config

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLoadJSONAndYAMLAgree(t *testing.T) {
	yamlText := `
mcpServers:
  files: {command: npx, args: [-y, server-filesystem, /srv], env: {DEBUG: "1"}}
  remote: {url: "https://example.com/mcp", headers: {X-Team: core}, timeout: 30}
models:
  local: {provider: ollama, model: qwen2.5, temperature: 0.3, contextWindow: 8192}
agents:
  bob: {model: local, prompt: "You handle e-mail.", servers: [files]}
approvals:
  rules: [{server: remote, tool: "get_*", policy: allow}]
limits: {turnTimeout: 2m}
`
	jsonText := `{
	"mcpServers": {
		"files": {"command": "npx", "args": ["-y", "server-filesystem", "\/srv"], "env": {"DEBUG": "1"}},
		"remote": {"url": "https://example.com/mcp", "headers": {"X-Team": "core"}, "timeout": 30}
	},
	"models": {"local": {"provider": "ollama", "model": "qwen2.5", "temperature": 0.3, "contextWindow": 8192}},
	"agents": {"bob": {"model": "local", "prompt": "You handle e-mail.", "servers": ["files"]}},
	"approvals": {"rules": [{"server": "remote", "tool": "get_*", "policy": "allow"}]},
	"limits": {"turnTimeout": "2m"}
}`
	fromYAML := mustLoad(t, "switchboard.yaml", yamlText, envMap{})
	fromJSON := mustLoad(t, "switchboard.json", jsonText, envMap{})
	// An unknown extension is sniffed from the content.
	sniffedJSON := mustLoad(t, "switchboard.conf", jsonText, envMap{})
	sniffedYAML := mustLoad(t, "switchboard.conf", yamlText, envMap{})
	for _, c := range []*Config{fromYAML, fromJSON, sniffedJSON, sniffedYAML} {
		c.Source = ""
	}
	if diff := cmp.Diff(fromYAML, fromJSON, cmpConfig); diff != "" {
		t.Errorf("YAML and JSON mismatch (-yaml +json):\n%s", diff)
	}
	if diff := cmp.Diff(fromJSON, sniffedJSON, cmpConfig); diff != "" {
		t.Errorf("sniffed JSON mismatch (-json +sniffed):\n%s", diff)
	}
	if diff := cmp.Diff(fromYAML, sniffedYAML, cmpConfig); diff != "" {
		t.Errorf("sniffed YAML mismatch (-yaml +sniffed):\n%s", diff)
	}
	if got := fromYAML.MCPServers["remote"].Timeout; got != 30*time.Second {
		t.Errorf("timeout 30 = %v, want 30s", got)
	}
	if got := fromYAML.DefaultModel; got != "local" {
		t.Errorf("DefaultModel = %q, want the only model", got)
	}
}

// A claude_desktop_config.json as the Claude Desktop documentation shows it,
// with Windows paths, a remote server as Cursor writes it (with its
// ${env:NAME}), and the extra keys Cline writes.
const claudeDesktopConfig = `{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-filesystem",
        "C:\\Users\\username\\Desktop",
        "/Users/username/Downloads"
      ]
    },
    "brave-search": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-brave-search"],
      "env": {
        "BRAVE_API_KEY": "BSA-real-key-123"
      }
    },
    "memory": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-memory"],
      "autoApprove": [],
      "disabled": false,
      "timeout": 60,
      "transportType": "stdio"
    },
    "linear": {
      "url": "https://mcp.linear.app/mcp",
      "headers": {"Authorization": "Bearer ${env:LINEAR_TOKEN}"}
    },
    "everything": {
      "type": "streamable-http",
      "url": "http://localhost:3001/mcp"
    }
  }
}`

func TestLoadPastedClaudeDesktopConfig(t *testing.T) {
	c := mustLoad(t, "claude_desktop_config.json", claudeDesktopConfig, envMap{"LINEAR_TOKEN": "lin_api_secret"})
	stdio := func(args []string, env map[string]string) MCPServer {
		s := defaultMCPServer()
		s.Command, s.Args, s.Env = "npx", args, env
		return s
	}
	linear := defaultMCPServer()
	linear.URL, linear.Headers = "https://mcp.linear.app/mcp", map[string]string{"Authorization": "Bearer lin_api_secret"}
	everything := defaultMCPServer()
	everything.Type, everything.URL = "streamable-http", "http://localhost:3001/mcp"
	want := map[string]MCPServer{
		"filesystem":   stdio([]string{"-y", "@modelcontextprotocol/server-filesystem", `C:\Users\username\Desktop`, "/Users/username/Downloads"}, nil),
		"brave-search": stdio([]string{"-y", "@modelcontextprotocol/server-brave-search"}, map[string]string{"BRAVE_API_KEY": "BSA-real-key-123"}),
		"memory":       stdio([]string{"-y", "@modelcontextprotocol/server-memory"}, nil),
		"linear":       linear,
		"everything":   everything,
	}
	if diff := cmp.Diff(want, c.MCPServers); diff != "" {
		t.Errorf("mcpServers mismatch (-want +got):\n%s", diff)
	}
	transports := map[string]Transport{}
	for name, s := range c.MCPServers {
		transports[name] = s.Transport()
	}
	wantTransports := map[string]Transport{
		"filesystem": TransportStdio, "brave-search": TransportStdio, "memory": TransportStdio,
		"linear": TransportAuto, "everything": TransportHTTP,
	}
	if diff := cmp.Diff(wantTransports, transports); diff != "" {
		t.Errorf("transports mismatch (-want +got):\n%s", diff)
	}
}

func TestLoadExample(t *testing.T) {
	data, err := os.ReadFile("testdata/example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := envMap{"GITHUB_TOKEN": "ghp_example", "HOME": "/home/u"}
	c := mustLoad(t, "switchboard.yaml", string(data), env)
	checks := []struct {
		name      string
		got, want any
	}{
		{"servers", len(c.MCPServers), 4},
		{"github header", c.MCPServers["github"].Headers["Authorization"], "Bearer ghp_example"},
		{"files cwd", c.MCPServers["files"].Cwd, "/cfg"},
		{"files transport", c.MCPServers["files"].Transport(), TransportStdio},
		{"linear transport", c.MCPServers["linear"].Transport(), TransportSSE},
		{"email bearer", c.OpenAPIServers["email"].Bearer.Value(), "dev-token"},
		{"roots", c.Builtin.Roots, []string{"/cfg"}},
		{"files mcp roots", c.MCPServers["files"].Roots, []string{"/cfg/docs"}},
		{"github mcp roots", c.MCPServers["github"].Roots, []string(nil)},
		{"global mcp roots", c.MCPRoots, []string{"/home/u/projects"}},
		{"message cap", c.Results.MaxMessageBytes, int64(256 << 20)},
		{"data", c.Data, "/cfg/data"},
		{"temperature", *c.Models["default"].Temperature, 0.2},
		{"defaultModel", c.DefaultModel, "default"},
		{"agent servers", c.Agents["bob"].Servers, []string{"email"}},
		{"rules", len(c.Approvals.Rules), 2},
		{"origins", c.Server.AllowedOrigins, []string{"http://localhost:3000"}},
	}
	for _, ch := range checks {
		if diff := cmp.Diff(ch.want, ch.got); diff != "" {
			t.Errorf("%s mismatch (-want +got):\n%s", ch.name, diff)
		}
	}
}

// The example in the package documentation is testdata/example.yaml.
func TestDocExampleMatchesTestdata(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("testdata/example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "// A complete configuration (testdata/example.yaml, which the tests load):\n//\n")
	if !ok {
		t.Fatal("doc.go has no example section")
	}
	var lines []string
	for _, l := range strings.Split(after, "\n") {
		if !strings.HasPrefix(l, "//") {
			break
		}
		lines = append(lines, strings.TrimPrefix(strings.TrimPrefix(l, "//"), "\t"))
	}
	if diff := cmp.Diff(strings.TrimRight(string(example), "\n"), strings.Join(lines, "\n")); diff != "" {
		t.Errorf("doc.go example differs from testdata/example.yaml (-testdata +doc):\n%s", diff)
	}
}

func TestLoadWithoutFile(t *testing.T) {
	c, err := Load(LoadOptions{Cwd: "/work", Getenv: envMap{"HOME": "/home/u"}.get, ReadFile: fakeFS{}.read})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := Default()
	want.Builtin.Roots = []string{"/work"}
	want.Data = "/work/.switchboard"
	want.Candidates = []string{
		"/work/switchboard.yaml", "/work/switchboard.yml", "/work/switchboard.json",
		"/home/u/.config/switchboard/config.yaml", "/home/u/.config/switchboard/config.yml", "/home/u/.config/switchboard/config.json",
	}
	want.TrustDirs = []string{"/home/u/.local/state/switchboard", "/work/.switchboard"}
	if diff := cmp.Diff(want, c, cmpConfig); diff != "" {
		t.Errorf("config mismatch (-want +got):\n%s", diff)
	}
}

func TestLoadEmptyFile(t *testing.T) {
	for _, name := range []string{"switchboard.yaml", "switchboard.json"} {
		c := mustLoad(t, name, "  \n", envMap{})
		if c.Source != "/cfg/"+name || c.Limits.ToolCallsPerTurn != 10 {
			t.Errorf("%s: empty file did not give defaults: %+v", name, c)
		}
	}
}

func TestLoadPaths(t *testing.T) {
	tests := []struct {
		name string
		file string
		env  envMap
		want []string // data, roots..., files cwd, spec
	}{
		{
			name: "relative to the file",
			file: "data: state\nbuiltin: {roots: [docs, /abs/x, ../up]}\nmcpServers: {f: {command: x, cwd: sub}}\nopenapiServers: {o: {url: 'http://h', spec: api.json}}\n",
			want: []string{"/cfg/state", "/cfg/docs", "/abs/x", "/up", "/cfg/sub", "/cfg/api.json"},
		},
		{
			name: "home",
			file: "data: ~/sb\nbuiltin: {roots: ['~']}\nmcpServers: {f: {command: x, cwd: ~/w}}\nopenapiServers: {o: {url: 'http://h', spec: 'https://h/openapi.json'}}\n",
			env:  envMap{"HOME": "/home/u"},
			want: []string{"/home/u/sb", "/home/u", "/home/u/w", "https://h/openapi.json"},
		},
		{
			name: "SWITCHBOARD_DATA wins, relative to cwd",
			file: "data: state\n",
			env:  envMap{"SWITCHBOARD_DATA": "var/sb"},
			want: []string{"/work/var/sb", "/work", "", ""},
		},
		{
			name: "defaults to .switchboard in cwd, not XDG_DATA_HOME or HOME",
			file: "{}",
			env:  envMap{"XDG_DATA_HOME": "/xdg/data", "HOME": "/home/u"},
			want: []string{"/work/.switchboard", "/work", "", ""},
		},
		{
			name: "nothing to go on",
			file: "{}",
			want: []string{"/work/.switchboard", "/work", "", ""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustLoad(t, "switchboard.yaml", tt.file, tt.env)
			got := append([]string{c.Data}, c.Builtin.Roots...)
			got = append(got, c.MCPServers["f"].Cwd, c.OpenAPIServers["o"].Spec)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("paths mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func BenchmarkLoadExample(b *testing.B) {
	data, err := os.ReadFile("testdata/example.yaml")
	if err != nil {
		b.Fatal(err)
	}
	opts := LoadOptions{
		Path:     "/cfg/switchboard.yaml",
		Cwd:      "/work",
		Getenv:   envMap{"GITHUB_TOKEN": "t"}.get,
		ReadFile: fakeFS{"/cfg/switchboard.yaml": string(data)}.read,
	}
	for b.Loop() {
		if _, err := Load(opts); err != nil {
			b.Fatal(err)
		}
	}
}

func TestDatabase(t *testing.T) {
	c := mustLoad(t, "switchboard.yaml", "database: {url: 'postgres://u:pw@db/sb'}\n", envMap{})
	if c.Database.URL != "postgres://u:pw@db/sb" {
		t.Errorf("database = %+v", c.Database)
	}
	if got, want := c.SQLitePath(), c.Data+"/switchboard.db"; got != want {
		t.Errorf("SQLitePath() = %q, want %q", got, want)
	}
	var out strings.Builder
	if err := c.WriteEffective(&out, FormatYAML); err != nil || strings.Contains(out.String(), "pw") {
		t.Errorf("effective config shows the database password (err %v):\n%s", err, out.String())
	}
	c = mustLoad(t, "switchboard.yaml", "{}", envMap{"SWITCHBOARD_DATABASE_URL": "postgresql://h/x"})
	if c.Database.URL != "postgresql://h/x" {
		t.Errorf("SWITCHBOARD_DATABASE_URL not applied: %+v", c.Database)
	}
	c.Database.URL = "mysql://h/x"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "database.url") {
		t.Errorf("Validate accepted a mysql URL: %v", err)
	}
}

// TestMCPRootsAbsentOrEmpty checks that roots: [] (no roots for this
// server) stays apart from a server without the key (the global mcpRoots),
// and that relative roots resolve against the file while URIs stay as
// they are.
func TestMCPRootsAbsentOrEmpty(t *testing.T) {
	c := mustLoad(t, "switchboard.yaml", `
mcpRoots: [shared, "file:///srv/data"]
mcpServers:
  none: {command: x, roots: []}
  own: {command: x, roots: [./mine]}
  inherit: {command: x}
`, envMap{})
	checks := []struct {
		name      string
		got, want []string
	}{
		{"global", c.MCPRoots, []string{"/cfg/shared", "file:///srv/data"}},
		{"none", c.MCPServers["none"].Roots, []string{}},
		{"own", c.MCPServers["own"].Roots, []string{"/cfg/mine"}},
		{"inherit", c.MCPServers["inherit"].Roots, nil},
	}
	for _, ch := range checks {
		if diff := cmp.Diff(ch.want, ch.got); diff != "" {
			t.Errorf("%s mismatch (-want +got):\n%s", ch.name, diff)
		}
		if (ch.got == nil) != (ch.want == nil) {
			t.Errorf("%s: nil %v, want nil %v", ch.name, ch.got == nil, ch.want == nil)
		}
	}
}
