package config

import "time"

// Values accepted by the enumerated fields.
const (
	ProviderOpenAI    = "openai"
	ProviderAnthropic = "anthropic"
	ProviderGemini    = "gemini"
	ProviderOllama    = "ollama"

	ToolModeAuto   = "auto"
	ToolModeNative = "native"
	ToolModeText   = "text"

	RouterOff    = "off"
	RouterAuto   = "auto"
	RouterAlways = "always"

	ModeDefault  = "default"
	ModeAllowAll = "allow-all"
	ModeAskAll   = "ask-all"

	SandboxAuto     = "auto"
	SandboxRequired = "required"
	SandboxOff      = "off"

	PolicyAllow = "allow"
	PolicyAsk   = "ask"
	PolicyDeny  = "deny"

	// BuiltinServer is the server name of the built-in tools in agent
	// server lists and approval rules; no configured server may use it.
	BuiltinServer = "builtin"
)

// Defaults of the fields that are filled when absent.
const (
	DefaultCallTimeout     = 60 * time.Second
	DefaultShutdownTimeout = 2 * time.Second
	DefaultModelTimeout    = 5 * time.Minute
	DefaultResultBytes     = 64 << 10
	DefaultMessageBytes    = 256 << 20
	DefaultAddr            = "127.0.0.1:8080"
)

// ProtocolVersions returns the MCP protocol versions a server may be pinned
// to, oldest first.
func ProtocolVersions() []string {
	return []string{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}
}

// BuiltinTools returns the names of the built-in tools.
func BuiltinTools() []string {
	return []string{
		"read_file", "write_file", "edit_file", "list_dir", "grep",
		"terminal", "calculator", "current_time", "read_tool_output",
		"read_upload",
	}
}

// Default returns the configuration used when no file sets anything. It has
// no servers and no models; [Load] adds what the environment provides.
func Default() *Config {
	return &Config{
		Builtin: Builtin{
			Terminal: Terminal{Timeout: DefaultCallTimeout, MaxOutput: DefaultResultBytes, Sandbox: SandboxAuto},
			ReadFile: ReadFile{MaxBytes: 1 << 20},
		},
		Results:   Results{MaxBytes: DefaultResultBytes, MaxMessageBytes: DefaultMessageBytes},
		Assistant: Assistant{Router: RouterAuto},
		Approvals: Approvals{
			Mode:        ModeDefault,
			ReadOnly:    PolicyAllow,
			Destructive: PolicyAsk,
			Unannotated: PolicyAsk,
			Timeout:     5 * time.Minute,
		},
		Limits: Limits{
			ToolCallsPerTurn:  10,
			ParallelToolCalls: 4,
			CallTimeout:       DefaultCallTimeout,
			TurnTimeout:       10 * time.Minute,
		},
		Server: Server{
			Addr:               DefaultAddr,
			BodyReadTimeout:    30 * time.Second,
			MaxStreamsPerUser:  8,
			MCPSessionIdle:     DefaultMCPSessionIdle,
			MCPSessionsPerUser: DefaultMCPSessionsPerUser,
			GCPercent:          DefaultGCPercent,
			MemoryLimitMB:      DefaultMemoryLimitMB,
		},
		// No level: each command chooses (warn for one-shot commands, info
		// for serve), unless the file, the environment or --log-level sets one.
		Log:  Log{Format: "text"},
		Auth: Auth{Sessions: Sessions{Idle: DefaultSessionIdle, Absolute: DefaultSessionAbsolute}},
	}
}

// The defaults of one map entry; the decoder starts each entry from these.
func defaultMCPServer() MCPServer {
	return MCPServer{Timeout: DefaultCallTimeout, ShutdownTimeout: DefaultShutdownTimeout}
}

func defaultOpenAPIServer() OpenAPIServer {
	return OpenAPIServer{Timeout: DefaultCallTimeout}
}

func defaultModel() Model {
	return Model{ToolMode: ToolModeAuto, Timeout: DefaultModelTimeout}
}

func defaultAgent() Agent {
	return Agent{Router: RouterAuto}
}
