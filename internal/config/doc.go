// Package config is Switchboard's one canonical configuration: the [Config]
// type, its [Default] values, [Load] (the only reader of config files and of
// the environment), [Config.Validate] and the [Secret] type.
//
// Only internal/app and internal/cli import it. Every other package takes its
// own Options struct and app maps Config onto it. It imports the standard
// library and go.yaml.in/yaml/v3 only.
//
// # Loading
//
// [Load] goes: defaults, then the file, then ${VAR} expansion in the file's
// string values, then the environment, then LoadOptions.Override (where the
// cli applies flags), then Validate. Validate is pure, so changing fields
// after Load and calling it again works as well.
//
// The file is the --config path if given, else the first of
// switchboard.yaml, switchboard.yml and switchboard.json in the working
// directory, else config.yaml, config.yml or config.json in
// $XDG_CONFIG_HOME/switchboard ($HOME/.config/switchboard). No file is not an
// error: the defaults and the environment apply.
//
// JSON or YAML is chosen by the extension (the content decides for any other
// extension). Reading is strict: unknown keys and values of the wrong type
// are errors, and every one is reported at once with its field path and
// line, such as
//
//	mcpServers.files.args[1]: expected a string, got a mapping (line 7)
//
// A null value is the same as leaving the key out. String fields take any
// scalar as written (YAML's `DEBUG: true` is the string "true"). YAML
// anchors, aliases and << merge keys work.
//
// Inside mcpServers entries, keys that other MCP hosts write and that are
// harmless to drop are accepted and ignored: autoApprove (Cline), alwaysAllow
// and watchPaths (Roo Code), transportType (Cline; the transport is inferred
// anyway). Roo Code's disabledTools is honoured as tools.deny. Keys whose
// loss would change behaviour (serverUrl, httpUrl, includeTools,
// excludeTools, envFile) are errors that say what to write instead, as are
// the top-level keys of VS Code (servers, inputs). Claude Desktop's own
// settings (globalShortcut, preferences) are ignored, so its
// claude_desktop_config.json works as it is with --config. Other unknown
// keys suggest the closest known key.
//
// # Values
//
// ${VAR} and ${VAR:-default} expand from the environment in string values
// (never in keys), after parsing, so a value cannot break the file's syntax.
// ${env:NAME}, the spelling Cursor and VS Code use, is the same as ${NAME}.
// $$ is a literal $; a $ before anything else stays as it is. An unset
// ${VAR} without default expands to "" and Validate reports it, except
// inside disabled servers. A default may itself hold ${OTHER}.
//
// Durations are Go duration strings ("30s", "2m", "1h30m") or numbers of
// seconds (60, 0.5). Per-entry defaults (mcpServers timeout 60s and
// shutdownTimeout 2s, openapiServers timeout 60s, models toolMode auto and
// timeout 5m, agents router auto) apply to keys an entry leaves out; an
// explicit 0 timeout is an error rather than "no timeout".
//
// Relative paths in the file (data, builtin.roots, mcpServers cwd,
// openapiServers spec files) are relative to the file's directory; ~/ is
// $HOME. Arguments (args) are passed to the server unchanged.
//
// # Environment
//
// SWITCHBOARD_DATA replaces data; without either, data is ./.switchboard in
// the working directory.
//
// When the file configures no models, the first of these that is set creates
// a model named "default" (this is the precedence):
//
//  1. OPENAI_API_KEY and/or OPENAI_BASE_URL: openai, gpt-4o-mini
//  2. ANTHROPIC_API_KEY: anthropic, claude-sonnet-4-5
//  3. GEMINI_API_KEY (or GOOGLE_API_KEY): gemini, gemini-2.5-flash
//  4. OLLAMA_HOST: ollama (its native API) at that host, llama3.2
//
// SWITCHBOARD_MODEL replaces that model's id. A model in the file without
// apiKey takes its provider's variable when its baseURL is empty or the
// provider's own host (so a key is never sent to another server); an openai
// model without baseURL takes OPENAI_BASE_URL, an ollama one OLLAMA_HOST. An
// empty defaultModel becomes the model named "default", else the only model.
//
// # Secrets
//
// apiKey, bearer and oauth.clientSecret are [Secret]s, which print as
// REDACTED in every form (fmt, slog, JSON, YAML); Value returns the secret.
// [Config.WriteEffective] prints the effective configuration for
// `switchboard config check` with secrets, secret-looking env and header
// values, values from secret-looking variables and URL passwords redacted.
//
// # Example
//
// A complete configuration (testdata/example.yaml, which the tests load):
//
//	# switchboard.yaml: every section, with its defaults noted.
//	# Durations are Go duration strings ("30s", "2m", "1h30m") or plain
//	# numbers of seconds (60, 0.5). ${VAR} and ${VAR:-default} expand from
//	# the environment in any string value; $$ is a literal $.
//
//	# MCP servers, in the format Claude Desktop and Cursor use: paste yours.
//	mcpServers:
//	  files:                      # a stdio server: command (+ args, env, cwd)
//	    command: npx
//	    args: [-y, "@modelcontextprotocol/server-filesystem", ./docs]
//	    env: {LOG_LEVEL: warn}
//	    cwd: .                    # relative to this file's directory
//	    timeout: 60s              # per tool call (default 60s)
//	    shutdownTimeout: 2s       # grace after stdin closes (default 2s)
//	    tools:                    # path.Match globs; deny wins
//	      deny: [write_*, move_file]
//	    roots: [./docs]           # MCP roots offered to this server; [] = none
//	    pinning: hold             # a changed tool definition is held until an admin
//	                              # accepts it (tools changes/accept); auto accepts
//	    inheritEnv: [NODE_OPTIONS] # globs of Switchboard's variables it also gets;
//	                              # otherwise only PATH, HOME, USER, LOGNAME, SHELL,
//	                              # TERM, TZ, TMPDIR, LANG, LC_* and env
//	    sandbox:                  # true | false | {read, write, network, limits};
//	      read: [~/.npm]          # read: added to /usr, /etc..., the roots and cwd
//	      write: [./docs, ~/.npm] # left out: the roots; []: nothing
//	      network: true           # npx fetches the package (default false)
//	      limits: {processes: 256, openFiles: 1024, cpuTime: 0, memory: 2147483648}
//	  github:                     # a remote server: url (+ headers, oauth)
//	    url: https://api.githubcopilot.com/mcp/
//	    headers:
//	      Authorization: "Bearer ${GITHUB_TOKEN}"
//	    # type: http | sse | stdio. Left out: command means stdio, url means
//	    # Streamable HTTP with a fallback to the legacy SSE transport.
//	    type: http
//	    protocolVersion: "2025-06-18"   # pin; left out, it is negotiated
//	  linear:
//	    url: https://mcp.linear.app/sse
//	    type: sse
//	    oauth:                    # optional OAuth client for remote servers
//	      clientId: switchboard
//	      clientSecret: ${LINEAR_CLIENT_SECRET:-}
//	      scopes: [read]
//	      redirectURL: http://127.0.0.1:8080/oauth/callback
//	  old:
//	    command: ./old-server
//	    disabled: true            # kept in the file, not started
//
//	# MCP roots offered to every server without roots of its own. Left out
//	# (the default), no roots are offered and servers keep their own settings.
//	mcpRoots: [~/projects]
//
//	# HTTP services described by OpenAPI 3; each operation becomes a tool.
//	openapiServers:
//	  email:
//	    url: http://localhost:8000
//	    # spec: ./email.json     # URL or file; left out, it is discovered
//	    bearer: ${EMAIL_TOKEN:-dev-token}
//	    operations: {allow: ["*"], deny: [delete*]}
//	    timeout: 30s              # default 60s
//	    ttl: 10m                  # refetch the document; 0 (default) = once
//
//	# Built-in tools: read_file, write_file, edit_file, list_dir, grep,
//	# terminal, calculator, current_time, read_tool_output, read_upload.
//	builtin:
//	  roots: [.]                  # file tools stay inside (default: cwd)
//	  disabled: [terminal]
//	  terminal:
//	    timeout: 60s
//	    maxOutput: 65536
//	    sandbox: auto             # auto (kernel sandbox where supported) | required | off
//	    network: false            # sandboxed commands reach the network (default false)
//	    inheritEnv: [GOPATH]      # variables besides the minimal base
//	    limits: {processes: 1024} # openFiles, cpuTime, memory as for servers
//	  readFile: {maxBytes: 1048576}
//
//	results:
//	  maxBytes: 65536             # tool result text the model sees
//	  maxMessageBytes: 268435456  # hard cap on one message from a stdio server
//
//	# Models. With none here, OPENAI_API_KEY (+ OPENAI_BASE_URL),
//	# ANTHROPIC_API_KEY, GEMINI_API_KEY or OLLAMA_HOST create "default".
//	models:
//	  default:
//	    provider: openai          # openai | anthropic | gemini | ollama
//	    baseURL: http://localhost:11434/v1
//	    model: qwen2.5
//	    toolMode: auto            # native | text | auto: as the endpoint says (default auto)
//	    contextWindow: 32768
//	    maxTokens: 4096
//	    temperature: 0.2
//	    timeout: 5m               # per request (default 5m)
//	  claude:
//	    provider: anthropic
//	    model: claude-sonnet-4-5
//	    apiKey: ${ANTHROPIC_API_KEY:-}  # empty: taken from ANTHROPIC_API_KEY
//	defaultModel: default
//
//	# Named agents, called with @name.
//	agents:
//	  bob:
//	    description: Handles e-mail.
//	    model: claude
//	    prompt: You handle e-mail.
//	    servers: [email]          # left out: all servers; []: no tools
//	    router: auto              # off | auto | always (default auto)
//
//	assistant:
//	  prompt: You are a helpful assistant.
//	  router: auto
//
//	approvals:
//	  mode: default               # default | allow-all | ask-all
//	  readOnly: allow             # default allow
//	  destructive: ask            # default ask
//	  unannotated: ask            # default ask
//	  timeout: 5m
//	  rules:                      # first match wins
//	    - {server: builtin, tool: terminal, policy: ask}
//	    - {server: github, tool: "get_*", policy: allow}
//
//	limits:
//	  toolCallsPerTurn: 10
//	  parallelToolCalls: 4
//	  callTimeout: 60s
//	  turnTimeout: 10m
//
//	toolSearch:
//	  maxTools: 40                # tools offered at once; more: the best-ranked + find_tools; -1 = all
//	  embeddings:                 # optional; without it ranking makes no network call
//	    model: default            # an entry of models (openai, ollama or gemini)
//	    embeddingModel: text-embedding-3-small
//
//	server:
//	  addr: 127.0.0.1:8080
//	  allowedOrigins: [http://localhost:3000]
//	  publicProbes: false         # true: /metrics, /readyz answer without a key
//	  bodyReadTimeout: 30s        # a request body must arrive within this
//	  maxStreamsPerUser: 8        # open SSE chat/run streams per user
//	  mcpSessionIdle: 30m          # /mcp sessions with no request for this long end
//	  mcpSessionsPerUser: 64       # open /mcp sessions per user; past it, 429
//	  # mcpSessionKey: ${SWITCHBOARD_MCP_SESSION_KEY}  # same on every replica: sessions continue on any
//	  gcPercent: 400               # GOGC while serving; -1 leaves GOGC in charge
//	  memoryLimitMB: 1024          # soft memory limit while serving; 0 none, -1 leaves GOMEMLIMIT
//
//	rateLimits:                   # per API key; 0 = unlimited (default)
//	  requestsPerMinute: 120
//	  toolCallsPerMinute: 60
//
//	log: {level: info, format: text}   # debug|info|warn|error, text|json
//
//	data: ./data                  # SWITCHBOARD_DATA overrides
//
//	# The default sandbox of stdio MCP servers that set none: false (the
//	# default), true, or {read, write, network, limits} as under mcpServers.
//	sandbox: false
//
//	# Empty (the default): SQLite in the data directory. A postgres:// URL lets
//	# several replicas share one database. SWITCHBOARD_DATABASE_URL overrides.
//	database:
//	  url: ${SWITCHBOARD_PG:-}
package config
