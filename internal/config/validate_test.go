package config

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// validBase is a valid config with one of everything, for tests to break.
func validBase() *Config {
	c := Default()
	c.Data = "/data"
	c.Builtin.Roots = []string{"/work"}
	files := defaultMCPServer()
	files.Command = "npx"
	remote := defaultMCPServer()
	remote.URL = "https://example.com/mcp"
	c.MCPServers = map[string]MCPServer{"files": files, "remote": remote}
	mail := defaultOpenAPIServer()
	mail.URL = "http://localhost:8000"
	c.OpenAPIServers = map[string]OpenAPIServer{"mail": mail}
	m := defaultModel()
	m.Provider, m.Model = ProviderOpenAI, "gpt-4o-mini"
	c.Models = map[string]Model{"default": m}
	c.DefaultModel = "default"
	a := defaultAgent()
	a.Servers = []string{"mail", "files", "builtin"}
	c.Agents = map[string]Agent{"bob": a}
	return c
}

// edit returns a function that changes one map entry of a config.
func editMCP(name string, f func(*MCPServer)) func(*Config) {
	return func(c *Config) {
		s, ok := c.MCPServers[name]
		if !ok {
			s = defaultMCPServer()
		}
		f(&s)
		c.MCPServers[name] = s
	}
}

func TestValidate(t *testing.T) {
	neg := -1.0
	hot := 2.5
	tests := []struct {
		name string
		edit func(*Config)
		want []string
	}{
		{name: "valid", edit: func(*Config) {}},
		{name: "defaults are valid", edit: func(c *Config) { *c = *Default() }},
		{
			name: "neither command nor url",
			edit: editMCP("x", func(s *MCPServer) {}),
			want: []string{"mcpServers.x: set command to run a local server or url to reach a remote one"},
		},
		{
			name: "both command and url",
			edit: editMCP("x", func(s *MCPServer) { s.Command, s.URL = "a", "https://a.example" }),
			want: []string{"mcpServers.x: set either command (a local program) or url (a remote server), not both"},
		},
		{
			name: "type stdio without command",
			edit: editMCP("x", func(s *MCPServer) { s.Type, s.URL = "stdio", "https://a.example" }),
			want: []string{"mcpServers.x.command: type stdio needs command, the program to run"},
		},
		{
			name: "type http without url",
			edit: editMCP("x", func(s *MCPServer) { s.Type, s.Command = "sse", "srv" }),
			want: []string{"mcpServers.x.url: type sse needs url, the server's endpoint"},
		},
		{
			name: "unknown type",
			edit: editMCP("x", func(s *MCPServer) { s.Type, s.URL = "websocket", "https://a.example" }),
			want: []string{`mcpServers.x.type: unknown type "websocket"; use stdio, http or sse (or leave it out)`},
		},
		{
			name: "bad url",
			edit: editMCP("x", func(s *MCPServer) { s.URL = "example.com/mcp" }),
			want: []string{`mcpServers.x.url: "example.com/mcp" is not an http or https URL such as https://example.com/mcp`},
		},
		{
			name: "stdio fields on a remote server and the reverse",
			edit: func(c *Config) {
				editMCP("r", func(s *MCPServer) { s.URL, s.Args = "https://a.example", []string{"x"} })(c)
				editMCP("l", func(s *MCPServer) { s.Command, s.Headers = "x", map[string]string{"A": "b"} })(c)
			},
			want: []string{
				"mcpServers.l: headers and oauth apply only to remote servers (with url); remove them",
				"mcpServers.r: args, env and cwd apply only to stdio servers (with command); remove them",
			},
		},
		{
			name: "bad protocol version",
			edit: editMCP("files", func(s *MCPServer) { s.ProtocolVersion = "2024-11-05" }),
			want: []string{`mcpServers.files.protocolVersion: unknown protocol version "2024-11-05"; use one of 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28 or leave it out to negotiate`},
		},
		{
			name: "bad globs",
			edit: func(c *Config) {
				editMCP("files", func(s *MCPServer) { s.Tools = Filter{Allow: []string{"ok*", "[a-"}, Deny: []string{`x\`}} })(c)
				o := c.OpenAPIServers["mail"]
				o.Operations.Deny = []string{"[z"}
				c.OpenAPIServers["mail"] = o
			},
			want: []string{
				`mcpServers.files.tools.allow[1]: bad glob "[a-": syntax error in pattern; globs use * ? and [a-z], with \ to escape`,
				`mcpServers.files.tools.deny[0]: bad glob "x\\": syntax error in pattern; globs use * ? and [a-z], with \ to escape`,
				`openapiServers.mail.operations.deny[0]: bad glob "[z": syntax error in pattern; globs use * ? and [a-z], with \ to escape`,
			},
		},
		{
			name: "negative and zero durations",
			edit: func(c *Config) {
				editMCP("files", func(s *MCPServer) { s.Timeout, s.ShutdownTimeout = 0, -time.Second })(c)
				c.Limits.TurnTimeout = -time.Minute
				c.Approvals.Timeout = 0
				o := c.OpenAPIServers["mail"]
				o.TTL = -1
				c.OpenAPIServers["mail"] = o
			},
			want: []string{
				"mcpServers.files.timeout: must be greater than 0; leave it out for the default 1m0s",
				"mcpServers.files.shutdownTimeout: must not be negative",
				"openapiServers.mail.ttl: must not be negative",
				"approvals.timeout: must be greater than 0; leave it out for the default 5m0s",
				"limits.turnTimeout: must be greater than 0; leave it out for the default 10m0s",
			},
		},
		{
			name: "server names",
			edit: func(c *Config) {
				for _, n := range []string{"", "my server", "a__b", "builtin", "ok.name-1_x"} {
					editMCP(n, func(s *MCPServer) { s.Command = "x" })(c)
				}
			},
			want: []string{
				`mcpServers[""]: a server name must not be empty`,
				`mcpServers.a__b: server name "a__b" contains "__", which separates server and tool in catalogue names (server__tool); use a single _ or -`,
				`mcpServers.builtin: the server name "builtin" is reserved for the built-in tools; choose another`,
				`mcpServers["my server"]: server name "my server" may use only letters, digits, _, . and -`,
			},
		},
		{
			name: "name shared by an mcp and an openapi server",
			edit: editMCP("mail", func(s *MCPServer) { s.Command = "x" }),
			want: []string{`openapiServers.mail: the name "mail" is also an mcpServers entry; server names must be unique because tool names are server__tool`},
		},
		{
			name: "openapi server without url",
			edit: func(c *Config) { c.OpenAPIServers["x"] = defaultOpenAPIServer() },
			want: []string{"openapiServers.x.url: set url, the base URL of the service"},
		},
		{
			name: "model values",
			edit: func(c *Config) {
				c.Models["bad"] = Model{Provider: "openia", ToolMode: "json", BaseURL: "localhost:11434", ContextWindow: -1, MaxTokens: -2, Temperature: &hot, Timeout: -1}
				c.Models["cold"] = Model{Provider: ProviderOllama, Model: "x", Temperature: &neg, Timeout: time.Second}
			},
			want: []string{
				`models.bad.provider: unknown value "openia"; use one of openai, anthropic, gemini, ollama`,
				"models.bad.model: set the provider's model id, such as gpt-4o-mini",
				`models.bad.baseURL: "localhost:11434" is not an http or https URL such as https://example.com/mcp`,
				`models.bad.toolMode: unknown value "json"; use one of auto, native, text`,
				"models.bad.contextWindow: must not be negative",
				"models.bad.maxTokens: must not be negative",
				"models.bad.temperature: 2.5 is outside 0 to 2",
				"models.bad.timeout: must be greater than 0; leave it out for the default 5m0s",
				"models.cold.toolMode: must be set to one of auto, native, text",
				"models.cold.temperature: -1 is outside 0 to 2",
			},
		},
		{
			name: "defaultModel naming no model",
			edit: func(c *Config) { c.DefaultModel = "gpt5" },
			want: []string{`defaultModel: no model named "gpt5"; the models are default`},
		},
		{
			name: "defaultModel with no models at all",
			edit: func(c *Config) { c.Models, c.DefaultModel, c.Agents = nil, "x", nil },
			want: []string{`defaultModel: no model named "x"; add it under models, or set OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or OLLAMA_HOST`},
		},
		{
			name: "several models and no default",
			edit: func(c *Config) {
				c.Models = map[string]Model{"a": c.Models["default"], "b": c.Models["default"]}
				c.DefaultModel = ""
			},
			want: []string{`defaultModel: several models and none named "default"; set defaultModel to one of a, b`},
		},
		{
			name: "agents",
			edit: func(c *Config) {
				c.Agents["bob"] = Agent{Model: "gpt5", Servers: []string{"mail", "nope"}, Router: "sometimes"}
				c.Agents["bad.name"] = Agent{Router: RouterOff}
				c.Assistant = Assistant{Model: "nope", Router: "never"}
			},
			want: []string{
				`agents["bad.name"]: agent name "bad.name" may use only letters, digits, _ and - (it is written @bad.name)`,
				`agents.bob.model: no model named "gpt5"; the models are default`,
				`agents.bob.servers[1]: no server named "nope"; name an mcpServers or openapiServers entry, or "builtin"`,
				`agents.bob.router: unknown value "sometimes"; use one of off, auto, always`,
				`assistant.model: no model named "nope"; the models are default`,
				`assistant.router: unknown value "never"; use one of off, auto, always`,
			},
		},
		{
			name: "approvals",
			edit: func(c *Config) {
				c.Approvals.Mode = "yolo"
				c.Approvals.Destructive = "allow-all"
				c.Approvals.Rules = []Rule{
					{Server: "files", Tool: "write_*", Policy: PolicyAllow},
					{Server: "[", Policy: "maybe"},
					{Server: "fieldz", Tool: "*", Policy: PolicyDeny},
					{Server: "f*", Policy: PolicyDeny},
					{Server: "builtin", Tool: "terminal", Policy: PolicyDeny},
					{Tool: "delete_*", Policy: PolicyDeny},
				}
			},
			want: []string{
				`approvals.mode: unknown value "yolo"; use one of default, allow-all, ask-all`,
				`approvals.destructive: unknown value "allow-all"; use one of allow, ask, deny`,
				`approvals.rules[1].server: bad glob "[": syntax error in pattern; globs use * ? and [a-z], with \ to escape`,
				`approvals.rules[1].policy: unknown value "maybe"; use one of allow, ask, deny`,
				`approvals.rules[2].server: no server named "fieldz"; name an mcpServers or openapiServers entry or "builtin", or use a glob`,
			},
		},
		{
			name: "builtin, results, limits, server, log",
			edit: func(c *Config) {
				c.Builtin.Roots = append(c.Builtin.Roots, "")
				c.Builtin.Disabled = []string{"terminal", "shell"}
				c.Builtin.Terminal.MaxOutput = 0
				c.Results.MaxBytes = -1
				c.Limits.ToolCallsPerTurn = 0
				c.Limits.ParallelToolCalls = -1
				c.Server.Addr = "8080"
				c.Server.AllowedOrigins = []string{"*", "https://ok.example", "https://x.example/path", "localhost"}
				c.RateLimits.RequestsPerMinute = -5
				c.Log = Log{Level: "verbose", Format: "xml"}
			},
			want: []string{
				"builtin.roots[1]: a root must not be empty",
				`builtin.disabled[1]: unknown built-in tool "shell"; the built-in tools are read_file, write_file, edit_file, list_dir, grep, terminal, calculator, current_time, read_tool_output, read_upload`,
				"builtin.terminal.maxOutput: must be greater than 0",
				"results.maxBytes: must be greater than 0 (default 65536)",
				"limits.toolCallsPerTurn: must be greater than 0 (default 10)",
				"limits.parallelToolCalls: must be greater than 0 (default 4; 1 runs calls one at a time)",
				`server.addr: "8080" is not host:port, such as 127.0.0.1:8080 or :8080`,
				`server.allowedOrigins[2]: "https://x.example/path" is not an origin such as https://example.com or http://localhost:3000 (or *)`,
				`server.allowedOrigins[3]: "localhost" is not an origin such as https://example.com or http://localhost:3000 (or *)`,
				"rateLimits.requestsPerMinute: must not be negative (0 means unlimited)",
				`log.level: unknown value "verbose"; use one of debug, info, warn, error`,
				`log.format: unknown value "xml"; use one of text, json`,
			},
		},
		{
			name: "env and header names, oauth redirect",
			edit: func(c *Config) {
				editMCP("files", func(s *MCPServer) { s.Env = map[string]string{"A=B": "x"} })(c)
				editMCP("remote", func(s *MCPServer) {
					s.Headers = map[string]string{"Bad Header": "x"}
					s.OAuth = &OAuth{ClientID: "x", RedirectURL: "/callback", ClientMetadataURL: "http://x.example/c.json"}
				})(c)
			},
			want: []string{
				`mcpServers.files.env: invalid variable name "A=B"`,
				`mcpServers.remote.headers: invalid header name "Bad Header"`,
				`mcpServers.remote.oauth.clientMetadataURL: "http://x.example/c.json" is not an https URL with a path, such as https://example.com/oauth/client.json`,
				`mcpServers.remote.oauth.redirectURL: "/callback" is not an http or https URL such as https://example.com/mcp`,
			},
		},
		{
			name: "oauth grant unknown",
			edit: editMCP("remote", func(s *MCPServer) { s.OAuth = &OAuth{Grant: "password"} }),
			want: []string{
				`mcpServers.remote.oauth.grant: unknown grant "password"; use "authorization_code" (a person logs in) or "client_credentials" (a service account with clientId and clientSecret)`,
			},
		},
		{
			name: "oauth client credentials without a secret",
			edit: editMCP("remote", func(s *MCPServer) { s.OAuth = &OAuth{Grant: "client_credentials", ClientID: "svc"} }),
			want: []string{
				`mcpServers.remote.oauth.grant: "client_credentials" needs clientId and clientSecret, registered with the authorization server beforehand`,
			},
		},
		{
			name: "roots and the message cap",
			edit: func(c *Config) {
				c.MCPRoots = []string{"/ok", "https://example.com/dir", ""}
				editMCP("files", func(s *MCPServer) { s.Roots = []string{"file:///ok", "file://", "/also/ok"} })(c)
				c.Results.MaxMessageBytes = 1000
			},
			want: []string{
				`mcpServers.files.roots[1]: "file://" is not a file:// URI; give a directory path or a file:///absolute/path URI`,
				`mcpRoots[1]: "https://example.com/dir" is not a file:// URI; give a directory path or a file:///absolute/path URI`,
				"mcpRoots[2]: a root must not be empty",
				"results.maxMessageBytes: must be at least 1048576 (1 MiB); the default is 268435456 (256 MiB)",
			},
		},
		{
			name: "url password is not echoed",
			edit: editMCP("remote", func(s *MCPServer) { s.URL = "ftp://user:hunter2@example.com" }),
			want: []string{`mcpServers.remote.url: "ftp://user:REDACTED@example.com" is not an http or https URL such as https://example.com/mcp`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := validBase()
			tt.edit(c)
			err := c.Validate()
			if diff := cmp.Diff(tt.want, problemsOf(err)); diff != "" {
				t.Errorf("problems mismatch (-want +got):\n%s", diff)
			}
			// Validate is pure: a second call says the same.
			if diff := cmp.Diff(problemsOf(err), problemsOf(c.Validate())); diff != "" {
				t.Errorf("second Validate differs (-first +second):\n%s", diff)
			}
		})
	}
}

func TestValidateDoesNotChangeConfig(t *testing.T) {
	c := mustLoad(t, "switchboard.yaml", "mcpServers: {a: {command: x, args: [\"${X}\"]}}\n", envMap{"X": "1"})
	before := *c
	before.MCPServers = map[string]MCPServer{"a": c.MCPServers["a"]}
	for range 2 {
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(&before, c, cmpConfig); diff != "" {
		t.Errorf("Validate changed the config (-before +after):\n%s", diff)
	}
}

func TestLoadReturnsConfigWithValidationErrors(t *testing.T) {
	c, err := loadText(t, "switchboard.json", `{"log": {"level": "loud"}, "limits": {"parallelToolCalls": 0}}`, envMap{})
	if c == nil {
		t.Fatal("Load returned no config with a validation error")
	}
	want := []string{
		"limits.parallelToolCalls: must be greater than 0 (default 4; 1 runs calls one at a time)",
		`log.level: unknown value "loud"; use one of debug, info, warn, error`,
	}
	if diff := cmp.Diff(want, problemsOf(err)); diff != "" {
		t.Errorf("problems mismatch (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(err.Error(), "invalid config /cfg/switchboard.json:\n") {
		t.Errorf("error does not name the file: %q", err)
	}
}

func TestLoadOverrideRunsBeforeValidate(t *testing.T) {
	// The file names a model only a flag provides; Override fixes it before
	// Validate runs.
	c, err := Load(LoadOptions{
		Path:     "/cfg/switchboard.yaml",
		Cwd:      "/work",
		Getenv:   envMap{"OPENAI_API_KEY": "sk-1"}.get,
		ReadFile: fakeFS{"/cfg/switchboard.yaml": "defaultModel: fast\nlog: {level: info}\n"}.read,
		Override: func(c *Config) {
			m := c.Models["default"]
			m.Model = "gpt-4.1-nano"
			c.Models["fast"] = m
			c.Log.Level = "debug"
		},
	})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if c.Log.Level != "debug" || c.Models["fast"].Model != "gpt-4.1-nano" {
		t.Errorf("Override not applied: log %q, models %v", c.Log.Level, c.Models)
	}
}
