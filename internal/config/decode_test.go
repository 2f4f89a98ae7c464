package config

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLoadReportsEveryDecodeError(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		content string
		want    []string
	}{
		{
			name: "mapping where a string belongs",
			file: "switchboard.yaml",
			content: `# servers
mcpServers:
  files:
    command: npx
    args:
      - -y
      - {path: ./docs}
`,
			want: []string{"mcpServers.files.args[1]: expected a string, got a mapping (line 7)"},
		},
		{
			name: "several problems at once",
			file: "switchboard.yaml",
			content: `mcpServers:
  files:
    command: npx
    disabled: "yes"
    timeout: soon
    comand: npx
limits:
  toolCallsPerTurn: ten
  parallelToolCalls: 1.5
log: text
colour: blue
`,
			want: []string{
				`mcpServers.files.disabled: expected true or false, got the string "yes" (line 4)`,
				`mcpServers.files.timeout: expected a duration such as "30s", "2m" or a number of seconds, got "soon" (line 5)`,
				`mcpServers.files.comand: unknown key; did you mean command? (line 6)`,
				`limits.toolCallsPerTurn: expected an integer, got the string "ten" (line 8)`,
				`limits.parallelToolCalls: expected an integer, got the number 1.5 (line 9)`,
				`log: expected a mapping (key: value), got the string "text" (line 10)`,
				`colour: unknown key; known keys: mcpServers, mcpRoots, openapiServers, builtin, results, models, defaultModel, agents, assistant, approvals, limits, server, rateLimits, log, data, database, tracing, sandbox, toolSearch, auth, context, uploads (line 11)`,
			},
		},
		{
			name:    "case mistake suggests the key",
			file:    "switchboard.yaml",
			content: "mcpservers: {}\nModels: {}\n",
			want: []string{
				"mcpservers: unknown key; did you mean mcpServers? (line 1)",
				"Models: unknown key; did you mean models? (line 2)",
			},
		},
		{
			name: "json with paths and lines",
			file: "switchboard.json",
			content: `{
	"mcpServers": {
		"files": {
			"command": "npx",
			"args": ["-y", 7, ["x"]],
			"env": {"A": {"b": 1}}
		}
	},
	"results": {"maxBytes": "big"},
	"builtin": {"roots": "."}
}`,
			want: []string{
				`mcpServers.files.args[2]: expected a string, got a list (line 5)`,
				`mcpServers.files.env.A: expected a string, got a mapping (line 6)`,
				`results.maxBytes: expected an integer, got the string "big" (line 9)`,
				`builtin.roots: expected a list, got the string "." (line 10)`,
			},
		},
		{
			name:    "hints for keys other hosts use",
			file:    "switchboard.json",
			content: `{"mcpServers": {"w": {"serverUrl": "https://x.example/mcp", "envFile": ".env", "excludeTools": ["a"]}}}`,
			want: []string{
				`mcpServers.w.serverUrl: unknown key; Switchboard calls it url (add type: http for Streamable HTTP only) (line 1)`,
				`mcpServers.w.envFile: unknown key; Switchboard does not read env files; list the variables under env, using ${VAR} for values from the environment (line 1)`,
				`mcpServers.w.excludeTools: unknown key; use tools: {deny: [...]} (line 1)`,
			},
		},
		{
			name:    "other hosts' top-level keys",
			file:    "mcp.json",
			content: `{"servers": {}, "inputs": [], "globalShortcut": "Ctrl+Space", "preferences": {"menuBarEnabled": true}}`,
			want: []string{
				"servers: unknown key; VS Code calls the section servers; Switchboard reads it as mcpServers (line 1)",
				"inputs: unknown key; VS Code input prompts are not supported; use ${VAR} with the value in the environment (line 1)",
			},
		},
		{
			name:    "duplicate keys",
			file:    "switchboard.yaml",
			content: "data: a\ndata: b\nmodels:\n  m: {provider: openai, model: x}\n  m: {provider: openai, model: y}\n",
			want: []string{
				"data: duplicate key (first at line 1); keep one (line 2)",
				"models.m: duplicate key (first at line 4); keep one (line 5)",
			},
		},
		{
			name:    "duplicate keys in json",
			file:    "switchboard.json",
			content: "{\"data\": \"a\",\n \"data\": \"b\"}",
			want:    []string{"data: duplicate key (first at line 1); keep one (line 2)"},
		},
		{
			name:    "top level is not a mapping",
			file:    "switchboard.yaml",
			content: "- a\n- b\n",
			want:    []string{"expected a mapping (key: value), got a list (line 1)"},
		},
		{
			name:    "key that is not a string",
			file:    "switchboard.yaml",
			content: "mcpServers:\n  [a, b]: {command: x}\n",
			want:    []string{"mcpServers: a key must be a plain string, got a list (line 2)"},
		},
		{
			name:    "integer out of range",
			file:    "switchboard.yaml",
			content: "results: {maxBytes: 99999999999999999999}\n",
			want:    []string{"results.maxBytes: integer 99999999999999999999 is out of range (line 1)"},
		},
		{
			name:    "bad reference syntax",
			file:    "switchboard.yaml",
			content: "data: ${1X}\nlog: {level: \"${LEVEL\"}\n",
			want: []string{
				`data: invalid reference "${1X}": a variable name starts with a letter or _; write $$ for a literal $ (line 1)`,
				`log.level: unterminated reference "${LEVEL": add the closing } (line 2)`,
			},
		},
		{
			name:    "temperature not a number",
			file:    "switchboard.yaml",
			content: "models:\n  m: {provider: openai, model: x, temperature: [1]}\n",
			want:    []string{"models.m.temperature: expected a number, got a list (line 2)"},
		},
		{
			name:    "yaml syntax error",
			file:    "switchboard.yaml",
			content: "mcpServers:\n  a: [\n",
			want:    []string{"parsing YAML: yaml: line 2: did not find expected node content"},
		},
		{
			name:    "json syntax error",
			file:    "switchboard.json",
			content: "{\n  \"data\": \"x\",\n  \"log\": {,}\n}",
			want:    []string{"parsing JSON: invalid character ',' (line 3)"},
		},
		{
			name:    "truncated json",
			file:    "switchboard.json",
			content: `{"mcpServers": {"a": {"command": "x"}`,
			want:    []string{"parsing JSON: the file ends too early; a } or ] is missing"},
		},
		{
			name:    "two yaml documents",
			file:    "switchboard.yaml",
			content: "data: a\n---\ndata: b\n",
			want:    []string{"parsing YAML: the file holds more than one document (a second ---); keep one"},
		},
		{
			name:    "custom tag",
			file:    "switchboard.yaml",
			content: "data: !secret x\n",
			want:    []string{"data: expected a string, got a value tagged !secret (line 1)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := loadText(t, tt.file, tt.content, nil)
			if err == nil {
				t.Fatalf("Load succeeded, want errors")
			}
			if c != nil {
				t.Errorf("Load returned a config with a decode error")
			}
			if diff := cmp.Diff(tt.want, problemsOf(err)); diff != "" {
				t.Errorf("problems mismatch (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(err.Error(), "loading config /cfg/"+tt.file+":\n") {
				t.Errorf("error does not name the file: %q", err)
			}
		})
	}
}

func TestYAMLFormsDecode(t *testing.T) {
	// Anchors are written under a key the schema does not know; that is an
	// error, so the usual place for them is inside a known section.
	_, err := loadText(t, "switchboard.yaml", "x-defaults: &srv {timeout: 90}\n", nil)
	if diff := cmp.Diff([]string{"x-defaults: unknown key; known keys: mcpServers, mcpRoots, openapiServers, builtin, results, models, defaultModel, agents, assistant, approvals, limits, server, rateLimits, log, data, database, tracing, sandbox, toolSearch, auth, context, uploads (line 1)"}, problemsOf(err)); diff != "" {
		t.Errorf("problems mismatch (-want +got):\n%s", diff)
	}

	c := mustLoad(t, "switchboard.yaml", `
mcpServers:
  a: &srv
    command: a
    timeout: 90
    shutdownTimeout: 0.5
    env: {DEBUG: true, PORT: 8080, RATIO: 1.5}
  b:
    <<: *srv
    command: b
    timeout: 1m30s
    protocolVersion: 2025-06-18
  c:
    command: c
    autoApprove: [read]
    alwaysAllow: []
    transportType: stdio
    watchPaths: [/tmp]
    disabledTools: [write_file, "odd*name"]
    tools: {deny: [rm]}
  d: {command: d, timeout: "45", tools: ~, args: null}
`, nil)
	want := map[string]MCPServer{
		"a": {
			Command: "a", Timeout: 90 * time.Second, ShutdownTimeout: 500 * time.Millisecond,
			Env: map[string]string{"DEBUG": "true", "PORT": "8080", "RATIO": "1.5"},
		},
		"b": {
			Command: "b", Timeout: 90 * time.Second, ShutdownTimeout: 500 * time.Millisecond,
			Env: map[string]string{"DEBUG": "true", "PORT": "8080", "RATIO": "1.5"}, ProtocolVersion: "2025-06-18",
		},
		"c": {
			Command: "c", Timeout: DefaultCallTimeout, ShutdownTimeout: DefaultShutdownTimeout,
			Tools: Filter{Deny: []string{"rm", "write_file", `odd\*name`}},
		},
		"d": {Command: "d", Timeout: 45 * time.Second, ShutdownTimeout: DefaultShutdownTimeout},
	}
	for name := range want {
		s := want[name]
		s.Cwd = ""
		want[name] = s
	}
	if diff := cmp.Diff(want, c.MCPServers, cmpConfig); diff != "" {
		t.Errorf("mcpServers mismatch (-want +got):\n%s", diff)
	}
	if f := c.MCPServers["c"].Tools; f.Allows("odd*name") || f.Allows("oddXname") == false || f.Allows("write_file") {
		t.Errorf("disabledTools not matched literally: %+v", f)
	}
}

func TestLoadRejectsSelfMergeAndAliasBombs(t *testing.T) {
	var headers strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&headers, "H%d: v, ", i)
	}
	var bomb strings.Builder
	fmt.Fprintf(&bomb, "models:\n  m0: &m {provider: openai, model: x, headers: {%s}}\n", headers.String())
	for i := 1; i < 2000; i++ {
		fmt.Fprintf(&bomb, "  m%d: *m\n", i)
	}
	tests := []struct {
		name    string
		content string
		want    []string
	}{
		{
			name:    "mapping merging itself",
			content: "mcpServers:\n  x: &a {command: y, <<: *a}\n",
			want:    []string{"mcpServers.x: << merges a mapping into itself (line 2)"},
		},
		{
			name:    "mappings merging each other",
			content: "mcpServers:\n  x: &a {command: y, <<: {<<: *a}}\n",
			want:    []string{"mcpServers.x: << merges a mapping into itself (line 2)"},
		},
		{
			name:    "merge of a list",
			content: "mcpServers:\n  x: {command: y, <<: [1]}\n",
			want:    []string{"mcpServers.x: << merges a mapping, got the number 1 (line 2)"},
		},
		{
			name:    "aliases that multiply",
			content: bomb.String(),
			want:    []string{errTooLarge.Error()},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadText(t, "switchboard.yaml", tt.content, nil)
			if diff := cmp.Diff(tt.want, problemsOf(err)); diff != "" {
				t.Errorf("problems mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
