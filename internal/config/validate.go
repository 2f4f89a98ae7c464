package config

import (
	"fmt"
	"maps"
	"net"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/redact"
)

// Validate reports every problem in c at once, joined with errors.Join, each
// a [*FieldError] naming its field path. It does not change c, so it can run
// again after flags change fields.
func (c *Config) Validate() error {
	var p problems
	c.validateUnset(&p)
	c.validateMCPServers(&p)
	checkRoots(&p, "mcpRoots", c.MCPRoots)
	c.validateOpenAPIServers(&p)
	c.validateBuiltin(&p)
	c.validateModels(&p)
	c.validateAgents(&p)
	c.validateRest(&p)
	c.validateToolSearch(&p)
	c.validateAuth(&p)
	c.validateContext(&p)
	c.validateUploads(&p)
	return p.join()
}

// validateUnset names each ${VAR} without default whose variable was unset,
// except inside disabled servers, which are not started.
func (c *Config) validateUnset(p *problems) {
	for _, u := range c.unset {
		if c.underDisabledServer(u.path) {
			continue
		}
		p.add(u.path, "uses ${%s}, which is not set; set it in the environment or write ${%s:-default}", u.name, u.name)
	}
}

func (c *Config) underDisabledServer(fieldPath string) bool {
	for name, s := range c.MCPServers {
		if s.Disabled && strings.HasPrefix(fieldPath, joinKey("mcpServers", name)+".") {
			return true
		}
	}
	for name, s := range c.OpenAPIServers {
		if s.Disabled && strings.HasPrefix(fieldPath, joinKey("openapiServers", name)+".") {
			return true
		}
	}
	return false
}

func (c *Config) validateBuiltin(p *problems) {
	b := c.Builtin
	for i, r := range b.Roots {
		if r == "" {
			p.add(fmt.Sprintf("builtin.roots[%d]", i), "a root must not be empty")
		}
	}
	for i, name := range b.Disabled {
		if !slices.Contains(BuiltinTools(), name) {
			p.add(fmt.Sprintf("builtin.disabled[%d]", i), "unknown built-in tool %q; the built-in tools are %s", name, strings.Join(BuiltinTools(), ", "))
		}
	}
	checkPositive(p, "builtin.terminal.timeout", b.Terminal.Timeout, DefaultCallTimeout)
	switch b.Terminal.Sandbox {
	case SandboxAuto, SandboxRequired, SandboxOff:
	default:
		p.add("builtin.terminal.sandbox", "unknown value %q; use auto (sandboxed where the kernel supports it), required or off", b.Terminal.Sandbox)
	}
	checkGlobs(p, "builtin.terminal.inheritEnv", b.Terminal.InheritEnv)
	checkLimits(p, "builtin.terminal.limits", b.Terminal.Limits)
	if b.Terminal.MaxOutput <= 0 {
		p.add("builtin.terminal.maxOutput", "must be greater than 0")
	}
	if b.ReadFile.MaxBytes <= 0 {
		p.add("builtin.readFile.maxBytes", "must be greater than 0")
	}
	if c.Results.MaxBytes <= 0 {
		p.add("results.maxBytes", "must be greater than 0 (default %d)", DefaultResultBytes)
	}
	if c.Results.MaxMessageBytes < minMessageBytes {
		p.add("results.maxMessageBytes", "must be at least %d (1 MiB); the default is %d (256 MiB)", minMessageBytes, DefaultMessageBytes)
	}
}

// minMessageBytes is the smallest allowed results.maxMessageBytes: below
// it, ordinary tools/list answers would be refused.
const minMessageBytes = 1 << 20

// checkRoots reports roots that are empty or URIs that are not file:// URIs.
func checkRoots(p *problems, at string, roots []string) {
	for i, r := range roots {
		ri := fmt.Sprintf("%s[%d]", at, i)
		switch {
		case r == "":
			p.add(ri, "a root must not be empty")
		case strings.Contains(r, "://"):
			u, err := url.Parse(r)
			if err != nil || u.Scheme != "file" || u.Path == "" {
				p.add(ri, "%q is not a file:// URI; give a directory path or a file:///absolute/path URI", r)
			}
		}
	}
}

func (c *Config) validateModels(p *problems) {
	for _, name := range slices.Sorted(maps.Keys(c.Models)) {
		m := c.Models[name]
		at := joinKey("models", name)
		if name == "" || strings.ContainsFunc(name, func(r rune) bool { return !isNameRune(r, ".:-") }) {
			p.add(at, "model name %q may use only letters, digits, _, ., : and -", name)
		}
		checkEnum(p, at+".provider", m.Provider, ProviderOpenAI, ProviderAnthropic, ProviderGemini, ProviderOllama)
		if m.Model == "" {
			p.add(at+".model", "set the provider's model id, such as gpt-4o-mini")
		}
		if m.BaseURL != "" {
			checkURL(p, at+".baseURL", m.BaseURL)
		}
		checkEnum(p, at+".toolMode", m.ToolMode, ToolModeAuto, ToolModeNative, ToolModeText)
		if m.ContextWindow < 0 {
			p.add(at+".contextWindow", "must not be negative")
		}
		if m.MaxTokens < 0 {
			p.add(at+".maxTokens", "must not be negative")
		}
		if t := m.Temperature; t != nil && (*t < 0 || *t > 2) {
			p.add(at+".temperature", "%v is outside 0 to 2", *t)
		}
		checkHeaders(p, at+".headers", m.Headers)
		checkPositive(p, at+".timeout", m.Timeout, DefaultModelTimeout)
	}
	switch _, ok := c.Models[c.DefaultModel]; {
	case c.DefaultModel != "" && !ok:
		p.add("defaultModel", "no model named %q; %s", c.DefaultModel, modelChoices(c.Models))
	case c.DefaultModel == "" && len(c.Models) > 1:
		p.add("defaultModel", "several models and none named \"default\"; set defaultModel to one of %s", strings.Join(slices.Sorted(maps.Keys(c.Models)), ", "))
	}
}

func modelChoices(models map[string]Model) string {
	if len(models) == 0 {
		return "add it under models, or set OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or OLLAMA_HOST"
	}
	return "the models are " + strings.Join(slices.Sorted(maps.Keys(models)), ", ")
}

func (c *Config) validateAgents(p *problems) {
	for _, name := range slices.Sorted(maps.Keys(c.Agents)) {
		a := c.Agents[name]
		at := joinKey("agents", name)
		if name == "" || strings.ContainsFunc(name, func(r rune) bool { return !isNameRune(r, "-") }) {
			p.add(at, "agent name %q may use only letters, digits, _ and - (it is written @%s)", name, name)
		}
		if _, ok := c.Models[a.Model]; a.Model != "" && !ok {
			p.add(at+".model", "no model named %q; %s", a.Model, modelChoices(c.Models))
		}
		for i, s := range a.Servers {
			if !c.hasServer(s) && s != BuiltinServer {
				p.add(fmt.Sprintf("%s.servers[%d]", at, i), "no server named %q; name an mcpServers or openapiServers entry, or %q", s, BuiltinServer)
			}
		}
		checkEnum(p, at+".router", a.Router, RouterOff, RouterAuto, RouterAlways)
	}
	if m := c.Assistant.Model; m != "" {
		if _, ok := c.Models[m]; !ok {
			p.add("assistant.model", "no model named %q; %s", m, modelChoices(c.Models))
		}
	}
	checkEnum(p, "assistant.router", c.Assistant.Router, RouterOff, RouterAuto, RouterAlways)
}

func (c *Config) validateRest(p *problems) {
	checkSandbox(p, "sandbox", &c.Sandbox)
	if e := c.Tracing.Endpoint; e != "" {
		checkURL(p, "tracing.endpoint", e)
	}
	if u := c.Database.URL; u != "" && !strings.HasPrefix(u, "postgres://") && !strings.HasPrefix(u, "postgresql://") {
		p.add("database.url", "%q is not a postgres:// URL; leave it empty for the embedded SQLite database in the data directory", redact.URL(u))
	}
	a := c.Approvals
	checkEnum(p, "approvals.mode", a.Mode, ModeDefault, ModeAllowAll, ModeAskAll)
	checkEnum(p, "approvals.readOnly", a.ReadOnly, PolicyAllow, PolicyAsk, PolicyDeny)
	checkEnum(p, "approvals.destructive", a.Destructive, PolicyAllow, PolicyAsk, PolicyDeny)
	checkEnum(p, "approvals.unannotated", a.Unannotated, PolicyAllow, PolicyAsk, PolicyDeny)
	checkPositive(p, "approvals.timeout", a.Timeout, 5*time.Minute)
	for i, r := range a.Rules {
		at := fmt.Sprintf("approvals.rules[%d]", i)
		checkGlob(p, at+".server", r.Server)
		if !strings.ContainsAny(r.Server, `*?[\`) && r.Server != "" && r.Server != BuiltinServer && !c.hasServer(r.Server) {
			// A typo here would silently leave the rule unused.
			p.add(at+".server", "no server named %q; name an mcpServers or openapiServers entry or %q, or use a glob", r.Server, BuiltinServer)
		}
		checkGlob(p, at+".tool", r.Tool)
		checkEnum(p, at+".policy", r.Policy, PolicyAllow, PolicyAsk, PolicyDeny)
	}

	l := c.Limits
	if l.ToolCallsPerTurn <= 0 {
		p.add("limits.toolCallsPerTurn", "must be greater than 0 (default 10)")
	}
	if l.ParallelToolCalls <= 0 {
		p.add("limits.parallelToolCalls", "must be greater than 0 (default 4; 1 runs calls one at a time)")
	}
	checkPositive(p, "limits.callTimeout", l.CallTimeout, DefaultCallTimeout)
	checkPositive(p, "limits.turnTimeout", l.TurnTimeout, 10*time.Minute)

	if _, port, err := net.SplitHostPort(c.Server.Addr); err != nil || port == "" {
		p.add("server.addr", "%q is not host:port, such as %s or :8080", c.Server.Addr, DefaultAddr)
	}
	for i, o := range c.Server.AllowedOrigins {
		if o == "*" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			p.add(fmt.Sprintf("server.allowedOrigins[%d]", i), "%q is not an origin such as https://example.com or http://localhost:3000 (or *)", o)
		}
	}
	if c.Server.BodyReadTimeout < 0 {
		p.add("server.bodyReadTimeout", "must not be negative (0 means the default, 30s)")
	}
	if c.Server.MaxStreamsPerUser < 0 {
		p.add("server.maxStreamsPerUser", "must not be negative (0 means the default, 8)")
	}
	checkPositive(p, "server.mcpSessionIdle", c.Server.MCPSessionIdle, DefaultMCPSessionIdle)
	if c.Server.MCPSessionsPerUser <= 0 {
		p.add("server.mcpSessionsPerUser", "must be greater than 0 (default %d)", DefaultMCPSessionsPerUser)
	}
	if u := c.Server.PublicURL; u != "" {
		if msg := checkPublicURL(u); msg != "" {
			p.add("server.publicURL", "%s", msg)
		}
	}
	if k := c.Server.MCPSessionKey.Value(); k != "" && len(k) < 16 {
		p.add("server.mcpSessionKey", "is %d characters; use 16 or more (a random string, the same on every replica), or leave it out", len(k))
	}
	if g := c.Server.GCPercent; g != -1 && g < 10 {
		p.add("server.gcPercent", "%d is too small: use 10 or more (default %d), or -1 to leave GOGC in charge", g, DefaultGCPercent)
	}
	if m := c.Server.MemoryLimitMB; m < -1 || (m > 0 && m < 64) {
		p.add("server.memoryLimitMB", "%d MiB is not a usable limit: use 64 or more (default %d), 0 for none, or -1 to leave GOMEMLIMIT in charge", m, DefaultMemoryLimitMB)
	}
	if c.RateLimits.RequestsPerMinute < 0 {
		p.add("rateLimits.requestsPerMinute", "must not be negative (0 means unlimited)")
	}
	if c.RateLimits.ToolCallsPerMinute < 0 {
		p.add("rateLimits.toolCallsPerMinute", "must not be negative (0 means unlimited)")
	}
	if c.Log.Level != "" {
		checkEnum(p, "log.level", c.Log.Level, "debug", "info", "warn", "error")
	}
	checkEnum(p, "log.format", c.Log.Format, "text", "json")
}

func (c *Config) hasServer(name string) bool {
	_, mcp := c.MCPServers[name]
	_, api := c.OpenAPIServers[name]
	return mcp || api
}

func checkEnum(p *problems, at, v string, allowed ...string) {
	if !slices.Contains(allowed, v) {
		if v == "" {
			p.add(at, "must be set to one of %s", strings.Join(allowed, ", "))
			return
		}
		p.add(at, "unknown value %q; use one of %s", v, strings.Join(allowed, ", "))
	}
}

func checkURL(p *problems, at, raw string) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.add(at, "%q is not an http or https URL such as https://example.com/mcp", redact.URL(raw))
	}
}

func checkHeaders(p *problems, at string, h map[string]string) {
	for k := range h {
		if k == "" || strings.ContainsFunc(k, func(r rune) bool { return r <= ' ' || r >= 0x7f || strings.ContainsRune(`()<>@,;:\"/[]?={}`, r) }) {
			p.add(at, "invalid header name %q", k)
		}
	}
}

func checkFilter(p *problems, at string, f Filter) {
	for i, g := range f.Allow {
		checkGlob(p, fmt.Sprintf("%s.allow[%d]", at, i), g)
	}
	for i, g := range f.Deny {
		checkGlob(p, fmt.Sprintf("%s.deny[%d]", at, i), g)
	}
}

// checkGlobs checks a list of environment variable name globs.
func checkGlobs(p *problems, at string, gs []string) {
	for i, g := range gs {
		if g == "" {
			p.add(fmt.Sprintf("%s[%d]", at, i), "an empty glob matches nothing; give a variable name or a glob such as AWS_*")
			continue
		}
		checkGlob(p, fmt.Sprintf("%s[%d]", at, i), g)
	}
}

// checkSandbox checks a sandbox's paths and limits.
func checkSandbox(p *problems, at string, sb *Sandbox) {
	for _, l := range []struct {
		key   string
		paths []string
	}{{"read", sb.Read}, {"write", sb.Write}} {
		for i, path := range l.paths {
			if path == "" {
				p.add(fmt.Sprintf("%s.%s[%d]", at, l.key, i), "a path must not be empty")
			}
		}
	}
	checkLimits(p, at+".limits", sb.Limits)
}

func checkLimits(p *problems, at string, l SandboxLimits) {
	if l.Processes < 0 {
		p.add(at+".processes", "must not be negative (0 means the default, 1024)")
	}
	if l.OpenFiles < 0 {
		p.add(at+".openFiles", "must not be negative (0 means the default, 4096)")
	}
	if l.CPUTime < 0 {
		p.add(at+".cpuTime", "must not be negative (0 means no limit)")
	}
	if l.Memory < 0 {
		p.add(at+".memory", "must not be negative (0 means the default, 8 GiB)")
	}
}

func checkGlob(p *problems, at, g string) {
	if _, err := path.Match(g, ""); err != nil {
		p.add(at, "bad glob %q: %v; globs use * ? and [a-z], with \\ to escape", g, err)
	}
}

func checkPositive(p *problems, at string, d, def time.Duration) {
	if d <= 0 {
		p.add(at, "must be greater than 0; leave it out for the default %s", def)
	}
}

func checkNonNegative(p *problems, at string, d time.Duration) {
	if d < 0 {
		p.add(at, "must not be negative")
	}
}
