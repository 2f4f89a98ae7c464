package mcpserve_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/mcpserve"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// featuresPool serves a pool's prompts and resources to the gateway, as
// the app does (internal/app/gateway_features.go); change closes the
// channel FeaturesChanged last returned.
type featuresPool struct {
	*mcphost.Pool
	mu *sync.Mutex
	ch *chan struct{}
}

func newFeaturesPool(p *mcphost.Pool) featuresPool {
	ch := make(chan struct{})
	return featuresPool{Pool: p, mu: &sync.Mutex{}, ch: &ch}
}

func (f featuresPool) FeaturesChanged() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return *f.ch
}

func (f featuresPool) change() {
	f.mu.Lock()
	defer f.mu.Unlock()
	close(*f.ch)
	*f.ch = make(chan struct{})
}

func (f featuresPool) FeatureServers() []string {
	var names []string
	for _, s := range f.Status() {
		names = append(names, s.Name)
	}
	return names
}

// featuresOut is what testdata/features.mjs prints.
type featuresOut struct {
	Capabilities map[string]json.RawMessage
	Prompts      struct {
		Prompts []struct {
			Name      string
			Arguments []struct {
				Name     string
				Required bool
			}
		}
		Error string
	}
	Resources struct {
		Resources []struct{ URI, Name, MimeType string }
		Error     string
	}
	Templates struct {
		ResourceTemplates []struct{ URITemplate, Name string }
		Error             string
	}
	Gets []struct {
		Messages []struct {
			Role    string
			Content struct{ Type, Text string }
		}
		Error string
	}
	Reads []struct {
		Contents []struct{ URI, MimeType, Text, Blob string }
		Error    string
	}
	Completes []struct {
		Completion struct{ Values []string }
		Error      string
	}
}

// TestFeaturesTypeScriptSDK serves server-everything's prompts and
// resources on /mcp and uses them with the MCP TypeScript SDK's client, a
// client nobody here wrote: alice, whose rules cover the server, lists
// and gets prompts and reads text, blob and template-expanded resources;
// bob, whose rules do not, sees none of them and is refused on get and
// read; carol, allowed one prompt, sees only it and no resources. Every
// get and read is audited under its gateway name.
func TestFeaturesTypeScriptSDK(t *testing.T) {
	nm, node := mcptest.NPM(t, "@modelcontextprotocol/sdk", "@modelcontextprotocol/server-everything")
	pool := mcphost.NewPool([]mcphost.ServerConfig{{
		Name: "everything", Command: node,
		Args: []string{filepath.Join(nm, "@modelcontextprotocol/server-everything/dist/index.js"), "stdio"},
	}}, &mcphost.Options{PingInterval: -1})
	pool.Start(t.Context())
	t.Cleanup(func() { pool.Close() })

	audit := &auditLog{}
	srv := newServer(t, tools.NewRegistry(nil), testGate(audit, mcpserve.ActionAllow), &mcpserve.Options{Features: newFeaturesPool(pool)})
	perms := map[string][]string{
		"alice": {"everything__*"},
		"bob":   {"other__*"},
		"carol": {"everything__simple-prompt"},
	}
	h := srv.Handler()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(callerHeader)
		p, ok := perms[id]
		if !ok {
			http.Error(w, "unknown caller", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r.WithContext(mcpserve.WithCaller(r.Context(), mcpserve.Caller{ID: id, Name: id, Permissions: p})))
	}))
	t.Cleanup(ts.Close)

	run := func(caller string, plan string) featuresOut {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), node, filepath.Join("testdata", "features.mjs"), nm, ts.URL+"/mcp", caller, plan)
		b, err := cmd.Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				t.Fatalf("features.mjs as %s: %v\n%s", caller, err, ee.Stderr)
			}
			t.Fatalf("features.mjs as %s: %v", caller, err)
		}
		var out featuresOut
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("features.mjs printed %q: %v", b, err)
		}
		return out
	}

	plan := `{"prompts":[{"name":"everything__simple-prompt"},{"name":"everything__args-prompt","arguments":{"city":"Lisbon","state":"Lisboa"}}],
		"reads":["switchboard://everything/demo://resource/static/document/architecture.md",
		         "switchboard://everything/demo://resource/dynamic/blob/3",
		         "switchboard://everything/demo://resource/dynamic/text/7"],
		"completes":[{"ref":{"type":"ref/prompt","name":"everything__completable-prompt"},"argument":{"name":"department","value":"Sa"}},
		             {"ref":{"type":"ref/prompt","name":"everything__completable-prompt"},"argument":{"name":"name","value":"A"},"context":{"arguments":{"department":"Engineering"}}},
		             {"ref":{"type":"ref/resource","uri":"switchboard://everything/demo://resource/dynamic/text/{resourceId}"},"argument":{"name":"resourceId","value":"4"}}]}`

	a := run("alice", plan)
	t.Logf("alice saw %d prompts, %d resources, %d templates", len(a.Prompts.Prompts), len(a.Resources.Resources), len(a.Templates.ResourceTemplates))
	if a.Capabilities["prompts"] == nil || a.Capabilities["resources"] == nil || a.Capabilities["completions"] == nil {
		t.Errorf("capabilities %v, want prompts, resources and completions", a.Capabilities)
	}
	// completion/complete relayed with the names mapped back: a prompt
	// argument, one narrowed by the context, a template variable.
	wantValues := [][]string{{"Sales"}, {"Alice"}, {"4"}}
	if len(a.Completes) != len(wantValues) {
		t.Fatalf("alice's completions %+v, want %d", a.Completes, len(wantValues))
	}
	for i, c := range a.Completes {
		if c.Error != "" || !slices.Equal(c.Completion.Values, wantValues[i]) {
			t.Errorf("completion %d: %+v, want values %v", i, c, wantValues[i])
		}
	}
	var names []string
	for _, p := range a.Prompts.Prompts {
		names = append(names, p.Name)
	}
	if !slices.Contains(names, "everything__simple-prompt") || !slices.Contains(names, "everything__args-prompt") {
		t.Errorf("alice's prompts %v, want everything__simple-prompt and everything__args-prompt (error %q)", names, a.Prompts.Error)
	}
	for _, r := range a.Resources.Resources {
		if !strings.HasPrefix(r.URI, "switchboard://everything/") {
			t.Errorf("resource URI %q not behind the gateway prefix", r.URI)
		}
	}
	if len(a.Resources.Resources) == 0 {
		t.Errorf("alice sees no resources (error %q)", a.Resources.Error)
	}
	var tpls []string
	for _, tp := range a.Templates.ResourceTemplates {
		tpls = append(tpls, tp.URITemplate)
	}
	if !slices.Contains(tpls, "switchboard://everything/demo://resource/dynamic/text/{resourceId}") {
		t.Errorf("alice's templates %v, want the dynamic text template behind the prefix (error %q)", tpls, a.Templates.Error)
	}
	if len(a.Gets) != 2 || a.Gets[0].Error != "" || len(a.Gets[0].Messages) == 0 {
		t.Fatalf("alice's gets %+v, want two prompts", a.Gets)
	}
	if got := a.Gets[1].Messages; a.Gets[1].Error != "" || len(got) == 0 || !strings.Contains(got[0].Content.Text, "Lisbon") {
		t.Errorf("args-prompt gave %+v, want a message naming Lisbon", a.Gets[1])
	}
	if len(a.Reads) != 3 {
		t.Fatalf("alice's reads %+v, want three", a.Reads)
	}
	for i, r := range a.Reads {
		if r.Error != "" || len(r.Contents) == 0 {
			t.Errorf("read %d: %+v, want contents", i, r)
			continue
		}
		if !strings.HasPrefix(r.Contents[0].URI, "switchboard://everything/") {
			t.Errorf("read %d: contents URI %q not behind the gateway prefix", i, r.Contents[0].URI)
		}
	}
	if len(a.Reads[0].Contents) > 0 && a.Reads[0].Contents[0].Text == "" {
		t.Errorf("text resource read empty: %+v", a.Reads[0])
	}
	if len(a.Reads[1].Contents) > 0 {
		if b, err := base64.StdEncoding.DecodeString(a.Reads[1].Contents[0].Blob); err != nil || len(b) == 0 {
			t.Errorf("blob resource read %+v, want base64 bytes", a.Reads[1].Contents[0])
		}
	}
	if len(a.Reads[2].Contents) > 0 && !strings.Contains(a.Reads[2].Contents[0].Text, "7") {
		t.Errorf("template-expanded read %+v, want resource 7", a.Reads[2].Contents[0])
	}

	b := run("bob", plan)
	if len(b.Prompts.Prompts) != 0 || len(b.Resources.Resources) != 0 || len(b.Templates.ResourceTemplates) != 0 {
		t.Errorf("bob sees %d prompts, %d resources, %d templates, want none",
			len(b.Prompts.Prompts), len(b.Resources.Resources), len(b.Templates.ResourceTemplates))
	}
	for i, g := range b.Gets {
		if !strings.Contains(g.Error, "permissions do not include") {
			t.Errorf("bob's get %d: %+v, want a refusal naming permissions", i, g)
		}
	}
	for i, r := range b.Reads {
		if !strings.Contains(r.Error, "permissions do not cover the server everything") {
			t.Errorf("bob's read %d: %+v, want a refusal naming permissions", i, r)
		}
	}
	for i, c := range b.Completes {
		if !strings.Contains(c.Error, "permissions do not") || len(c.Completion.Values) != 0 {
			t.Errorf("bob's completion %d: %+v, want a refusal naming permissions", i, c)
		}
	}

	c := run("carol", plan)
	names = names[:0]
	for _, p := range c.Prompts.Prompts {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []string{"everything__simple-prompt"}) || len(c.Resources.Resources) != 0 {
		t.Errorf("carol sees prompts %v and %d resources, want only everything__simple-prompt", names, len(c.Resources.Resources))
	}
	if len(c.Gets) != 2 || c.Gets[0].Error != "" || c.Gets[1].Error == "" {
		t.Errorf("carol's gets %+v, want the first only", c.Gets)
	}

	// alice: 2 gets, 3 reads run, completions not recorded; bob: 5 refused
	// and 3 refused completions; carol: 1 run, 1 refused, 3 refused reads,
	// 3 refused completions.
	audit.mu.Lock()
	defer audit.mu.Unlock()
	count := map[string]int{}
	for _, rec := range audit.begun {
		count[rec.User+" "+rec.Tool+" "+string(rec.Approval)]++
	}
	want := map[string]int{
		"alice everything__simple-prompt auto": 1, "alice everything__args-prompt auto": 1, "alice everything__resource auto": 3,
		"bob everything__simple-prompt forbidden": 1, "bob everything__args-prompt forbidden": 1, "bob everything__resource forbidden": 4,
		"bob everything__completable-prompt forbidden": 2,
		"carol everything__simple-prompt auto":         1, "carol everything__args-prompt forbidden": 1, "carol everything__resource forbidden": 4,
		"carol everything__completable-prompt forbidden": 2,
	}
	if !maps.Equal(count, want) {
		t.Errorf("audit records %v, want %v", count, want)
	}
}
