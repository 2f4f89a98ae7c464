package config_test

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/switchboard-mcp/switchboard/internal/config"
)

// files returns a ReadFile over an in-memory set of files.
func files(m map[string]string) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		if s, ok := m[p]; ok {
			return []byte(s), nil
		}
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
}

func ExampleLoad() {
	env := map[string]string{"HOME": "/home/me", "GITHUB_TOKEN": "ghp_123", "ANTHROPIC_API_KEY": "sk-ant-123"}
	c, err := config.Load(config.LoadOptions{
		Cwd:    "/srv",
		Getenv: func(k string) string { return env[k] },
		ReadFile: files(map[string]string{"/srv/switchboard.yaml": `
mcpServers:
  github:
    url: https://api.githubcopilot.com/mcp/
    headers: {Authorization: "Bearer ${GITHUB_TOKEN}"}
`}),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	gh := c.MCPServers["github"]
	fmt.Println(c.Source, gh.Transport(), gh.Timeout)
	fmt.Println(c.DefaultModel, c.Models["default"].Provider, c.Models["default"].APIKey)
	fmt.Println(c.Builtin.Roots, c.Data)
	// Output:
	// /srv/switchboard.yaml auto 1m0s
	// default anthropic REDACTED
	// [/srv] /srv/.switchboard
}

func ExampleLoad_problems() {
	_, err := config.Load(config.LoadOptions{
		Cwd:    "/srv",
		Getenv: func(string) string { return "" },
		ReadFile: files(map[string]string{"/srv/switchboard.json": `{
  "mcpServers": {
    "files": {"command": "npx", "args": ["-y", {"path": "."}]},
    "my__server": {"url": "https://example.com/mcp", "timout": "30s"}
  }
}`}),
	})
	fmt.Println(err)
	// Output:
	// loading config /srv/switchboard.json:
	// mcpServers.files.args[1]: expected a string, got a mapping (line 3)
	// mcpServers.my__server.timout: unknown key; did you mean timeout? (line 4)
}

// The defaults, with one model whose key is redacted.
func ExampleConfig_WriteEffective() {
	c := config.Default()
	c.Models = map[string]config.Model{
		"default": {Provider: config.ProviderOpenAI, Model: "gpt-4o-mini", APIKey: "sk-live-123", ToolMode: config.ToolModeAuto, Timeout: config.DefaultModelTimeout},
	}
	c.DefaultModel = "default"
	if err := c.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	if err := c.WriteEffective(os.Stdout, config.FormatYAML); err != nil {
		fmt.Println(err)
	}
	// Output:
	// builtin:
	//   terminal:
	//     timeout: 1m0s
	//     maxOutput: 65536
	//     sandbox: auto
	//     network: false
	//   readFile:
	//     maxBytes: 1048576
	// results:
	//   maxBytes: 65536
	//   maxMessageBytes: 268435456
	// models:
	//   default:
	//     provider: openai
	//     model: gpt-4o-mini
	//     apiKey: REDACTED
	//     toolMode: auto
	//     timeout: 5m0s
	// defaultModel: default
	// assistant:
	//   router: auto
	// approvals:
	//   mode: default
	//   readOnly: allow
	//   destructive: ask
	//   unannotated: ask
	//   timeout: 5m0s
	// limits:
	//   toolCallsPerTurn: 10
	//   parallelToolCalls: 4
	//   callTimeout: 1m0s
	//   turnTimeout: 10m0s
	// server:
	//   addr: 127.0.0.1:8080
	//   publicProbes: false
	//   bodyReadTimeout: 30s
	//   maxStreamsPerUser: 8
	//   mcpSessionIdle: 30m0s
	//   mcpSessionsPerUser: 64
	//   gcPercent: 400
	//   memoryLimitMB: 1024
	// rateLimits:
	//   requestsPerMinute: 0
	//   toolCallsPerMinute: 0
	// log:
	//   level: ""
	//   format: text
	// data: ""
	// sandbox: false
	// toolSearch:
	//   maxTools: 0
	//   embeddings: {}
	// auth:
	//   sessions:
	//     idle: 8h0m0s
	//     absolute: 168h0m0s
	// context: {}
	// uploads: {}
}
