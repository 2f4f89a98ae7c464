package app

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
)

func TestSealer(t *testing.T) {
	dir := t.TempDir()
	s, err := newSealer("", dir)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, secretKeyFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, mode %v; want 0600", err, fi.Mode())
	}
	sealed := s.seal([]byte(`{"env":{"K":"v"}}`), "server/a")
	if strings.Contains(string(sealed), `"v"`) {
		t.Error("sealed form holds the plain text")
	}
	if got, err := s.open(sealed, "server/a"); err != nil || string(got) != `{"env":{"K":"v"}}` {
		t.Errorf("open = %q, %v", got, err)
	}
	// Another entry's name, or another key, does not open it.
	if _, err := s.open(sealed, "server/b"); err == nil {
		t.Error("a sealed entry opened under another name")
	}
	again, err := newSealer("", dir) // the same key file
	if err != nil {
		t.Fatal(err)
	}
	if _, err := again.open(sealed, "server/a"); err != nil {
		t.Errorf("the key file's key does not open what it sealed: %v", err)
	}
	other, err := newSealer(config.Secret(base64.StdEncoding.EncodeToString(make([]byte, 32))), dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.open(sealed, "server/a"); err == nil || !strings.Contains(err.Error(), config.SecretKeyEnv) {
		t.Errorf("another key: %v, want an error naming %s", err, config.SecretKeyEnv)
	}
	if _, err := newSealer("c2hvcnQ=", dir); err == nil || !strings.Contains(err.Error(), "32 bytes") {
		t.Errorf("a short key: %v", err)
	}
	if err := os.Chmod(filepath.Join(dir, secretKeyFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := newSealer("", dir); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a key file others may read: %v", err)
	}
}

// TestEntryNamesRefused tries the names an entry must not take: the
// file's, the built-in tools', another kind's, and unknown kinds.
func TestEntryNamesRefused(t *testing.T) {
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Data = filepath.Join(dir, "data")
	cfg.Builtin.Roots = []string{dir}
	cfg.MCPServers = map[string]config.MCPServer{"filed": {Command: "/bin/true", Disabled: true, Timeout: 1}}
	cfg.OpenAPIServers = map[string]config.OpenAPIServer{"svc": {URL: "http://127.0.0.1:1", Disabled: true, Timeout: 1}}
	a, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx := t.Context()
	body := []byte(`{"command":"/bin/true","disabled":true,"env":{"TOKEN":"tok-123"}}`)
	for _, tc := range []struct {
		kind, name string
		want       error
		says       string
	}{
		{store.EntryServer, "filed", store.ErrConflict, "change it there"},
		{store.EntryServer, "svc", store.ErrConflict, "change it there"},
		{store.EntryOpenAPI, "filed", store.ErrConflict, "change it there"},
		{store.EntryServer, "builtin", store.ErrInvalid, "reserved"},
		{store.EntryServer, "a__b", store.ErrInvalid, "__"},
		{"agent", "m", store.ErrInvalid, "unknown kind"},
	} {
		_, err := a.PutConfigEntry(ctx, "root", tc.kind, tc.name, body, true)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s %q: %v, want %v saying %q", tc.kind, tc.name, err, tc.want, tc.says)
		}
	}
	if _, err := a.PutConfigEntry(ctx, "root", store.EntryServer, "one", body, true); err != nil {
		t.Fatal(err)
	}
	_, err = a.PutConfigEntry(ctx, "root", store.EntryOpenAPI, "one", []byte(`{"url":"http://127.0.0.1:1","disabled":true}`), true)
	if !errors.Is(err, store.ErrInvalid) || !strings.Contains(err.Error(), "unique") {
		t.Errorf("an OpenAPI service named as a runtime MCP server: %v", err)
	}
	if _, err := a.PutConfigEntry(ctx, "root", store.EntryServer, "one", body, true); !errors.Is(err, store.ErrConflict) {
		t.Errorf("adding twice: %v", err)
	}
	if _, err := a.PutConfigEntry(ctx, "root", store.EntryServer, "ghost", body, false); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("setting a missing entry: %v", err)
	}
	// Enabling keeps the secret (sealed), and nothing shows it.
	e, err := a.SetConfigEntryDisabled(ctx, "root", store.EntryServer, "one", false)
	if err != nil || e.Disabled {
		t.Fatalf("enable: %+v %v", e, err)
	}
	_, err = a.SetConfigEntryDisabled(ctx, "root", store.EntryServer, "one", true)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := a.Store(ctx)
	en, err := st.GetConfigEntry(ctx, store.EntryServer, "one")
	if err != nil {
		t.Fatal(err)
	}
	s, _ := a.entries.sealer()
	plain, err := s.open(en.Sealed, "server/one")
	if err != nil || !strings.Contains(string(plain), "tok-123") || strings.Contains(string(en.Body), "tok-123") {
		t.Errorf("after enable and disable: sealed %q (%v), shown %s", plain, err, en.Body)
	}
	list, err := a.ConfigEntries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var sources []string
	for _, e := range list {
		sources = append(sources, e.Kind+"/"+e.Name+":"+e.Source)
		if strings.Contains(string(e.Body), "tok-123") {
			t.Errorf("%s/%s shows the secret: %s", e.Kind, e.Name, e.Body)
		}
	}
	if got := strings.Join(sources, " "); got != "server/filed:config openapi/svc:config server/one:runtime" {
		t.Errorf("entries = %s", got)
	}
	if err := a.RemoveConfigEntry(ctx, "root", store.EntryServer, "filed"); !errors.Is(err, store.ErrConflict) {
		t.Errorf("removing the file's server: %v", err)
	}
	recs, err := st.ListAudit(ctx, store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, r := range recs {
		tools = append(tools, r.Tool)
		if strings.Contains(string(r.Arguments), "tok-123") {
			t.Errorf("audit %s holds the secret", r.Tool)
		}
	}
	if got := strings.Join(tools, " "); got != "config.server.disable config.server.enable config.server.add" {
		t.Errorf("audit = %s", got)
	}
}

// TestConflictingStoredEntriesLeaveTheFileApplied stores two entries that
// conflict (one name, two kinds), as two replicas adding at once could:
// the file and the first valid entry apply, nothing is refused, and an
// env value of an ordinary name is hidden from status texts.
func TestConflictingStoredEntriesLeaveTheFileApplied(t *testing.T) {
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Data = filepath.Join(dir, "data")
	cfg.Builtin.Roots = []string{dir}
	a, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx := t.Context()
	st, err := a.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := a.entries.sealer()
	if err != nil {
		t.Fatal(err)
	}
	put := func(kind, body string) {
		t.Helper()
		_, err := st.CreateConfigEntry(ctx, store.ConfigEntry{Kind: kind, Name: "x", Body: view([]byte(body)), Sealed: s.seal([]byte(body), kind+"/x")})
		if err != nil {
			t.Fatal(err)
		}
	}
	put(store.EntryServer, `{"command":"/bin/true","disabled":true,"env":{"PLAIN":"an-ordinary-name-value"}}`)
	put(store.EntryOpenAPI, `{"url":"http://127.0.0.1:1","disabled":true}`)
	a.entries.apply(ctx, a.file.Load(), "test")
	live := a.config()
	if _, ok := live.MCPServers["x"]; !ok {
		t.Errorf("the valid MCP entry was not applied: %v", live.MCPServers)
	}
	if _, ok := live.OpenAPIServers["x"]; ok {
		t.Error("the conflicting OpenAPI entry was applied")
	}
	if p := a.ConfigProblems(); p != nil {
		t.Errorf("the file was refused: %v", p)
	}
	if got := a.secrets.Text("server said an-ordinary-name-value"); strings.Contains(got, "an-ordinary-name-value") {
		t.Errorf("a runtime entry's env value shows in status texts: %q", got)
	}
}

// TestRuntimeModel adds a model at run time: a serving app applies it,
// its API key is sealed and never listed, the file's model name is
// refused, and an invalid one lists its problems.
func TestRuntimeModel(t *testing.T) {
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Data = filepath.Join(dir, "data")
	cfg.Builtin.Roots = []string{dir}
	cfg.Models = map[string]config.Model{"default": {Provider: config.ProviderOllama, Model: "llama3", ToolMode: config.ToolModeAuto, Timeout: 60}}
	cfg.DefaultModel = "default" // as Load fills it
	a, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	a.svc.Store(&service{app: a}) // apply here, as serve does
	ctx := t.Context()
	const key = "sk-runtime-model-key-123"
	if _, err := a.PutConfigEntry(ctx, "root", store.EntryModel, "fast", []byte(`{"provider":"openai","model":"gpt-4o-mini","apiKey":"`+key+`","baseURL":"http://127.0.0.1:1/v1"}`), true); err != nil {
		t.Fatal(err)
	}
	m, ok := a.config().Models["fast"]
	if !ok || m.APIKey.Value() != key || m.Model != "gpt-4o-mini" {
		t.Fatalf("the runtime model was not applied: %+v", a.config().Models)
	}
	list, err := a.ConfigEntries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range list {
		kinds = append(kinds, e.Kind+"/"+e.Name+":"+e.Source)
		if strings.Contains(string(e.Body), key) {
			t.Errorf("%s/%s shows the key: %s", e.Kind, e.Name, e.Body)
		}
	}
	if got := strings.Join(kinds, " "); got != "model/default:config model/fast:runtime" {
		t.Errorf("entries = %s", got)
	}
	if _, err := a.PutConfigEntry(ctx, "root", store.EntryModel, "default", []byte(`{"provider":"openai","model":"x"}`), true); !errors.Is(err, store.ErrConflict) {
		t.Errorf("the file's model name: %v", err)
	}
	_, err = a.PutConfigEntry(ctx, "root", store.EntryModel, "bad", []byte(`{"provider":"nobody"}`), true)
	if !errors.Is(err, store.ErrInvalid) || !strings.Contains(err.Error(), "provider") || !strings.Contains(err.Error(), "model id") {
		t.Errorf("an invalid model: %v", err)
	}
	if _, err := a.SetConfigEntryDisabled(ctx, "root", store.EntryModel, "fast", true); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("disabling a model: %v", err)
	}
	if err := a.RemoveConfigEntry(ctx, "root", store.EntryModel, "fast"); err != nil {
		t.Fatal(err)
	}
	if _, ok := a.config().Models["fast"]; ok {
		t.Error("the removed model is still applied")
	}
}

// TestPostgresNeedsSharedKey: with PostgreSQL and no SWITCHBOARD_SECRET_KEY
// an entry is refused (a per-replica key file would seal what the other
// replicas cannot open), and serving without entries needs no key.
func TestPostgresNeedsSharedKey(t *testing.T) {
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Data = filepath.Join(dir, "data")
	cfg.Builtin.Roots = []string{dir}
	cfg.Database.URL = storetest.PostgresSchema(t)
	a, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	_, err = a.PutConfigEntry(t.Context(), "root", store.EntryServer, "x", []byte(`{"command":"/bin/true","disabled":true}`), true)
	if !errors.Is(err, store.ErrInvalid) || !strings.Contains(err.Error(), config.SecretKeyEnv) {
		t.Errorf("an entry without the shared key: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cfg.Data, secretKeyFile)); err == nil {
		t.Error("a per-replica key file was made for PostgreSQL")
	}
	if list, err := a.ConfigEntries(t.Context()); err != nil || len(list) != 0 {
		t.Errorf("listing without the key: %v, %v", list, err)
	}
}
