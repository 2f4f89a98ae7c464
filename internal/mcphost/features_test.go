package mcphost_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

func TestProtocolVersions(t *testing.T) {
	tests := []struct {
		pin  string
		want string
	}{
		{"", "2026-07-28"},
		{"2026-07-28", "2026-07-28"},
		{"2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"2025-03-26", "2025-03-26"},
	}
	// One pool, one server per version: they also start concurrently.
	var scs []mcphost.ServerConfig
	for i, tt := range tests {
		sc := mcptest.StdioServer(t, fmt.Sprintf("v%d", i))
		sc.ProtocolVersion = tt.pin
		scs = append(scs, sc)
	}
	p := startPool(t, scs, nil)
	for i, tt := range tests {
		t.Run("pin "+tt.pin, func(t *testing.T) {
			name := fmt.Sprintf("v%d", i)
			st := statusOf(t, p, name)
			if st.State != mcphost.StateReady || st.ProtocolVersion != tt.want {
				t.Fatalf("state %s, version %q (%s), want ready at %s", st.State, st.ProtocolVersion, st.LastError, tt.want)
			}
			if res, err := call(t, findToolOf(t, p, name, "echo"), map[string]any{"text": "v"}); err != nil || res.Text() != "v" {
				t.Errorf("echo at %s: %v, %v", tt.want, res, err)
			}
		})
	}
}

func TestDiscoveryFallbackRespawns(t *testing.T) {
	t.Parallel()
	sc := mcptest.StdioServer(t, "old", mcptest.ModeNormal, mcptest.ModeNoDiscover)
	p := startPool(t, []mcphost.ServerConfig{sc}, nil)
	st := statusOf(t, p, "old")
	if st.State != mcphost.StateReady || st.ProtocolVersion != "2025-11-25" {
		t.Fatalf("state %s at %q (%s), want ready at 2025-11-25 after the classic initialize", st.State, st.ProtocolVersion, st.LastError)
	}
	ev := mcptest.EventsFile(sc)
	if n := mcptest.CountEvents(ev, "pid "); n != 2 {
		t.Errorf("server spawned %d times, want 2 (discovery, then classic initialize)", n)
	}
	if mcptest.CountEvents(ev, "discover-exit") != 1 || mcptest.CountEvents(ev, "method initialize") != 1 {
		t.Errorf("events %q: want one discovery exit and one initialize", mcptest.ReadEvents(ev))
	}
}

func TestPagination(t *testing.T) {
	t.Parallel()
	sc := mcptest.StdioServer(t, "pages", mcptest.ModeNormal, mcptest.ModePaginate)
	p := startPool(t, []mcphost.ServerConfig{sc}, nil)
	names := toolNames(p.Tools())
	for i := range 25 {
		if !slices.Contains(names, "t"+twoDigits(i)) {
			t.Fatalf("tool t%s missing from %d listed tools", twoDigits(i), len(names))
		}
	}
	if st := statusOf(t, p, "pages"); st.Tools != len(names) {
		t.Errorf("status counts %d tools, catalogue has %d", st.Tools, len(names))
	}
}

func twoDigits(i int) string { return string([]byte{byte('0' + i/10), byte('0' + i%10)}) }

func TestAllowDeny(t *testing.T) {
	tests := []struct {
		name        string
		allow, deny []string
		want        []string
	}{
		{"allow list", []string{"echo", "ad?"}, nil, []string{"add", "echo"}},
		{"deny wins", []string{"e*"}, []string{"echo"}, []string{"elicit"}},
		{"deny only", nil, []string{"*a*"}, []string{"big", "echo", "elicit", "progress", "register", "rich", "roots", "slow"}},
		{"malformed pattern matches nothing", []string{"[", "echo"}, nil, []string{"echo"}},
	}
	var scs []mcphost.ServerConfig
	for i, tt := range tests {
		sc := mcptest.StdioServer(t, fmt.Sprintf("f%d", i))
		sc.Allow, sc.Deny = tt.allow, tt.deny
		scs = append(scs, sc)
	}
	var log toolsLog
	opts := testOptions()
	opts.OnToolsChanged = log.hook
	startPool(t, scs, opts)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := log.get(fmt.Sprintf("f%d", i))
			if len(calls) == 0 {
				t.Fatal("no tools published")
			}
			got := calls[len(calls)-1]
			slices.Sort(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("tools mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListChanged(t *testing.T) {
	pins := []string{"", "2025-06-18"}
	var scs []mcphost.ServerConfig
	for i, pin := range pins {
		sc := mcptest.StdioServer(t, fmt.Sprintf("lc%d", i))
		sc.ProtocolVersion = pin
		scs = append(scs, sc)
	}
	var log toolsLog
	opts := testOptions()
	opts.OnToolsChanged = log.hook
	p := startPool(t, scs, opts)
	for i, pin := range pins {
		t.Run("pin "+pin, func(t *testing.T) {
			name := fmt.Sprintf("lc%d", i)
			late := "late_" + name
			if _, err := call(t, findToolOf(t, p, name, "register"), map[string]any{"name": late}); err != nil {
				t.Fatal(err)
			}
			if !mcptest.Poll(10*time.Second, func() bool { return slices.Contains(toolNames(p.Tools()), late) }) {
				t.Fatalf("%s never appeared; tools %v", late, toolNames(p.Tools()))
			}
			calls := log.get(name)
			if last := calls[len(calls)-1]; !slices.Contains(last, late) || !slices.Contains(last, "echo") {
				t.Errorf("last OnToolsChanged set %v: want the full set including %s", last, late)
			}
			res, err := call(t, findToolOf(t, p, name, late), nil)
			if err != nil || res.Text() != "late "+late {
				t.Errorf("%s call: %v, %v", late, res, err)
			}
		})
	}
}

func TestProgress(t *testing.T) {
	t.Parallel()
	sc := mcptest.StdioServer(t, "pr")
	p := startPool(t, []mcphost.ServerConfig{sc}, nil)
	var mu sync.Mutex
	var got []tools.Progress
	res, err := findTool(t, p, "progress").Call(context.Background(), &tools.CallRequest{
		Arguments: []byte(`{"steps":3}`),
		Progress: func(pr tools.Progress) {
			mu.Lock()
			got = append(got, pr)
			mu.Unlock()
		},
	})
	if err != nil || res.Text() != "token=true" {
		t.Fatalf("progress call: %v, %v", res, err)
	}
	want := []tools.Progress{{Progress: 1, Total: 3, Message: "step 1"}, {Progress: 2, Total: 3, Message: "step 2"}, {Progress: 3, Total: 3, Message: "step 3"}}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("progress mismatch (-want +got):\n%s", diff)
	}
	// Without an observer no progress token is sent.
	if res, _ := call(t, findTool(t, p, "progress"), map[string]any{"steps": 2}); res.Text() != "token=false" {
		t.Errorf("call without Progress sent a token: %q", res.Text())
	}
}

func TestSamplingAndElicitation(t *testing.T) {
	pins := []string{"", "2025-11-25"}
	var scs []mcphost.ServerConfig
	for i, pin := range pins {
		sc := mcptest.StdioServer(t, fmt.Sprintf("hooks%d", i))
		sc.ProtocolVersion = pin
		scs = append(scs, sc)
	}
	var mu sync.Mutex
	gotSample := map[string]*mcphost.SamplingRequest{}
	gotElicit := map[string]*tools.ElicitRequest{}
	opts := testOptions()
	opts.Sampling = func(_ context.Context, server string, req *mcphost.SamplingRequest) (*mcphost.SamplingResult, error) {
		mu.Lock()
		gotSample[server] = req
		mu.Unlock()
		return &mcphost.SamplingResult{Content: tools.Content{Type: tools.ContentText, Text: "hi from " + server}, Model: "m1"}, nil
	}
	opts.Elicitation = func(_ context.Context, server string, req *tools.ElicitRequest) (*tools.ElicitResult, error) {
		mu.Lock()
		gotElicit[server] = req
		mu.Unlock()
		return &tools.ElicitResult{Action: tools.ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
	}
	p := startPool(t, scs, opts)
	for i, pin := range pins {
		t.Run("pin "+pin, func(t *testing.T) {
			name := fmt.Sprintf("hooks%d", i)
			res, err := call(t, findToolOf(t, p, name, "sample"), map[string]any{"text": "question"})
			if err != nil || res.Text() != "model m1 said: hi from "+name {
				t.Fatalf("sample: %+v, %v", res, err)
			}
			wantSample := &mcphost.SamplingRequest{
				Messages:         []mcphost.SamplingMessage{{Role: "user", Content: tools.Content{Type: tools.ContentText, Text: "question"}}},
				SystemPrompt:     "be brief",
				MaxTokens:        100,
				ModelPreferences: &mcphost.ModelPreferences{Hints: []string{"small"}, SpeedPriority: 1},
			}
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff(wantSample, gotSample[name]); diff != "" {
				t.Errorf("sampling request mismatch (-want +got):\n%s", diff)
			}

			mu.Unlock()
			res, err = call(t, findToolOf(t, p, name, "elicit"), nil)
			mu.Lock()
			if err != nil || res.Text() != "action=accept name=Ada" {
				t.Fatalf("elicit: %+v, %v", res, err)
			}
			if ge := gotElicit[name]; ge == nil || ge.Message != "What is your name?" || ge.Mode != "form" || !strings.Contains(string(ge.Schema), `"name"`) {
				t.Errorf("elicitation request = %+v", ge)
			}
		})
	}
}

func TestResourcesAndPrompts(t *testing.T) {
	t.Parallel()
	var updated []string
	var mu sync.Mutex
	opts := testOptions()
	opts.OnResourceUpdated = func(server, uri string) {
		mu.Lock()
		updated = append(updated, server+" "+uri)
		mu.Unlock()
	}
	sc := mcptest.StdioServer(t, "rp")
	p := startPool(t, []mcphost.ServerConfig{sc}, opts)
	ctx := t.Context()

	rs, err := p.Resources(ctx, "rp")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]mcphost.Resource{{URI: "test://readme", Name: "readme", Description: "A test resource.", MIMEType: "text/plain"}}, rs); diff != "" {
		t.Errorf("resources mismatch (-want +got):\n%s", diff)
	}
	rts, err := p.ResourceTemplates(ctx, "rp")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]mcphost.ResourceTemplate{{URITemplate: "test://items/{id}", Name: "item", MIMEType: "application/json"}}, rts); diff != "" {
		t.Errorf("templates mismatch (-want +got):\n%s", diff)
	}
	rc, err := p.ReadResource(ctx, "rp", "test://items/7")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]mcphost.ResourceContents{{URI: "test://items/7", MIMEType: "application/json", Text: `{"item":true}`}}, rc); diff != "" {
		t.Errorf("read mismatch (-want +got):\n%s", diff)
	}

	ps, err := p.Prompts(ctx, "rp")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]mcphost.Prompt{{Name: "greet", Description: "Greets someone.", Arguments: []mcphost.PromptArgument{{Name: "who", Required: true}}}}, ps); diff != "" {
		t.Errorf("prompts mismatch (-want +got):\n%s", diff)
	}
	pr, err := p.GetPrompt(ctx, "rp", "greet", map[string]string{"who": "Bob"})
	if err != nil {
		t.Fatal(err)
	}
	want := &mcphost.PromptResult{Description: "greeting", Messages: []mcphost.PromptMessage{{Role: "user", Content: tools.Content{Type: tools.ContentText, Text: "Say hello to Bob"}}}}
	if diff := cmp.Diff(want, pr); diff != "" {
		t.Errorf("prompt mismatch (-want +got):\n%s", diff)
	}

	if _, err := p.Resources(ctx, "nope"); err == nil {
		t.Error("Resources of an unknown server: no error")
	}
}

func TestRoots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sc := mcptest.StdioServer(t, "roots")
	sc.Roots = []string{dir, "file:///already/a/uri"}
	p := startPool(t, []mcphost.ServerConfig{sc}, nil)
	res, err := call(t, findTool(t, p, "roots"), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The SDK keeps roots sorted by URI.
	if want := "file:///already/a/uri file://" + dir; res.Text() != want {
		t.Errorf("roots = %q, want %q", res.Text(), want)
	}
}
