package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

func TestSecretNeverPrints(t *testing.T) {
	type holder struct {
		Key Secret `json:"key" yaml:"key"`
	}
	s := Secret("sk-live-123")
	var logged bytes.Buffer
	slog.New(slog.NewTextHandler(&logged, nil)).Info("m", "key", s, "holder", holder{s})
	js, err := json.Marshal(holder{s})
	if err != nil {
		t.Fatal(err)
	}
	ys, err := yaml.Marshal(holder{s})
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{
		"String": s.String(),
		"%v":     fmt.Sprintf("%v", s),
		"%s":     fmt.Sprintf("%s", s), //nolint:staticcheck // the %s verb is what is tested
		"%+v":    fmt.Sprintf("%+v", holder{s}),
		"%#v":    fmt.Sprintf("%#v", holder{s}),
		"slog":   logged.String(),
		"json":   string(js),
		"yaml":   string(ys),
	}
	for name, out := range outputs {
		if strings.Contains(out, "sk-live") || !strings.Contains(out, Redacted) {
			t.Errorf("%s printed %q", name, out)
		}
	}
	if s.Value() != "sk-live-123" {
		t.Errorf("Value = %q", s.Value())
	}
	if empty := Secret(""); empty.String() != "" || fmt.Sprint(empty) != "" {
		t.Errorf("empty secret printed %q", empty.String())
	}
}

func TestWriteEffectiveRedacts(t *testing.T) {
	secrets := []string{
		"sk-file-key", "sk-env-key", "bearer-tok", "oauth-secret", "brave-key", "hdr-token", "ghp_fromvar", "url-pass", "cookie-val", "mdl-auth",
		"db-url-pass", "dsn-pass", "arg-dsn-pass", "sas-sig", "amz-sig",
	}
	env := envMap{"ANTHROPIC_API_KEY": "sk-env-key", "GITHUB_TOKEN": "ghp_fromvar"}
	c := mustLoad(t, "switchboard.yaml", `
mcpServers:
  brave:
    command: npx
    args: [--token, "${GITHUB_TOKEN}", --verbose]
    env: {BRAVE_API_KEY: brave-key, LOG_LEVEL: debug, Session_Cookie: cookie-val}
  db:
    command: pg-mcp
    args: ["host=db user=sb password=arg-dsn-pass", "--docs", "https://b.s3.amazonaws.com/k?X-Amz-Signature=amz-sig"]
    env: {DATABASE_URL: "postgres://sb:db-url-pass@db:5432/sb", PGCONN: "host=db password=dsn-pass"}
  blob:
    url: https://acct.blob.core.windows.net/mcp?sv=2022&sig=sas-sig
  remote:
    url: https://bob:url-pass@example.com/mcp
    headers: {X-Auth-Token: hdr-token, X-Team: core}
    oauth: {clientId: app, clientSecret: oauth-secret}
openapiServers:
  mail: {url: "http://localhost:8000", bearer: bearer-tok}
models:
  a: {provider: openai, model: gpt-4o, apiKey: sk-file-key, headers: {Authorization: mdl-auth}}
  b: {provider: anthropic, model: claude-sonnet-4-5}
defaultModel: a
`, env)
	for _, f := range []Format{FormatYAML, FormatJSON} {
		var out bytes.Buffer
		if err := c.WriteEffective(&out, f); err != nil {
			t.Fatalf("WriteEffective(%s): %v", f, err)
		}
		text := out.String()
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s output contains the secret %q:\n%s", f, s, text)
			}
		}
		for _, visible := range []string{
			"LOG_LEVEL", "debug", "core", "--verbose", "https://bob:REDACTED@example.com/mcp", "app",
			"postgres://sb:REDACTED@db:5432/sb", "host=db user=sb password=REDACTED", "sig=REDACTED", "X-Amz-Signature=REDACTED",
		} {
			if !strings.Contains(text, visible) {
				t.Errorf("%s output lacks %q:\n%s", f, visible, text)
			}
		}
		// The output is itself a valid config of the same shape.
		var back map[string]any
		var err error
		if f == FormatJSON {
			err = json.Unmarshal(out.Bytes(), &back)
		} else {
			err = yaml.Unmarshal(out.Bytes(), &back)
		}
		if err != nil {
			t.Fatalf("%s output does not parse: %v\n%s", f, err, text)
		}
	}
	// The config itself keeps the real values.
	if got := c.MCPServers["brave"].Args[1]; got != "ghp_fromvar" {
		t.Errorf("args[1] = %q, want the expanded token", got)
	}
}

func TestWriteEffectiveRoundTrips(t *testing.T) {
	// Output without secrets loads back into the same config.
	c := mustLoad(t, "switchboard.yaml", `
mcpServers:
  f: {command: npx, args: ["true", "2025-06-18", "", "a: b"], env: {DEBUG: "yes"}, timeout: 1m30s}
agents:
  none: {servers: []}
  all: {}
models:
  m: {provider: ollama, model: x, temperature: 0}
`, envMap{})
	for _, f := range []Format{FormatYAML, FormatJSON} {
		var out bytes.Buffer
		if err := c.WriteEffective(&out, f); err != nil {
			t.Fatal(err)
		}
		back := mustLoad(t, "effective."+string(f), out.String(), envMap{})
		back.Source = c.Source
		if diff := cmp.Diff(c, back, cmpConfig); diff != "" {
			t.Errorf("%s round trip mismatch (-loaded +reloaded):\n%s\n%s", f, diff, out.String())
		}
		if back.Agents["none"].Servers == nil || back.Agents["all"].Servers != nil {
			t.Errorf("%s round trip lost the difference between no servers and all servers", f)
		}
	}
	if err := c.WriteEffective(&bytes.Buffer{}, "toml"); err == nil {
		t.Error("WriteEffective accepted an unknown format")
	}
}
