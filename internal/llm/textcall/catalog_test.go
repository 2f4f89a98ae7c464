package textcall

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/observe"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

var goldenTools = []llm.ToolSpec{
	{
		Name:        "search",
		Description: "Search the web and return the top results.\nUses a public search engine.",
		Parameters:  []byte(`{"type":"object","properties":{"query":{"type":"string","description":"What to look for"},"limit":{"type":"integer"},"lang":{"type":"string","enum":["en","fr","de"]}},"required":["query"]}`),
	},
	{
		Name:        "files__read_file",
		Description: "Read a text file under the allowed roots.",
		Parameters:  []byte(`{"type":"object","required":["path"],"properties":{"path":{"type":"string"},"lines":{"type":"array","items":{"type":"integer"}},"encoding":{"type":["string","null"]}}}`),
	},
	{Name: "current_time", Description: "The current time."},
	{
		Name:       "weird",
		Parameters: []byte(`{"type":"object","properties":{"x":{"anyOf":[{"type":"string"},{"type":"number"}]},"y":{}}}`),
	},
}

func TestManifestGolden(t *testing.T) {
	got := NewCatalog(goldenTools, rankIndexer).Manifest(ManifestOptions{}).Text
	path := filepath.Join("testdata", "manifest.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run go test -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("manifest mismatch (-want +got):\n%s", diff)
	}
}

// bigCatalog returns n tools: a few real-sounding ones among generated
// filler, so ranking has something to find.
func bigCatalog(n int) []llm.ToolSpec {
	topics := []string{"invoice", "calendar", "ticket", "deploy", "metric", "user", "backup", "dns", "email", "repo"}
	verbs := []string{"list", "get", "create", "delete", "update", "search", "export", "archive"}
	var tools []llm.ToolSpec
	for i := 0; len(tools) < n; i++ {
		topic, verb := topics[i%len(topics)], verbs[(i/len(topics))%len(verbs)]
		name := fmt.Sprintf("srv%d__%s_%s", i/(len(topics)*len(verbs)), verb, topic)
		tools = append(tools, llm.ToolSpec{
			Name:        name,
			Description: fmt.Sprintf("%s a %s record in system %d. Returns the %s as JSON.", verb, topic, i, topic),
			Parameters:  []byte(fmt.Sprintf(`{"type":"object","properties":{"%s_id":{"type":"string"},"note":{"type":"string"}},"required":["%s_id"]}`, topic, topic)),
		})
	}
	tools[n/2] = llm.ToolSpec{
		Name:        "weather__get_forecast",
		Description: "Weather forecast for a city: temperature, rain and wind for the next days.",
		Parameters:  []byte(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
	}
	tools[n/3] = llm.ToolSpec{Name: "zz_translate", Description: "Translate text between languages."}
	return tools
}

func TestManifestAllFit(t *testing.T) {
	c := NewCatalog(goldenTools, rankIndexer)
	m := c.Manifest(ManifestOptions{Budget: 10000})
	if diff := cmp.Diff([]string{"search", "files__read_file", "current_time", "weird"}, m.Shown); diff != "" {
		t.Errorf("Shown mismatch (-want +got):\n%s", diff)
	}
	if len(m.Listed) != 0 || m.Omitted != 0 || strings.Contains(m.Text, "Also available") {
		t.Errorf("nothing should be listed apart: %+v", m)
	}
}

func TestManifestBudget(t *testing.T) {
	c := NewCatalog(bigCatalog(200), rankIndexer)
	tests := []struct {
		name     string
		opts     ManifestOptions
		wantShow []string // must be among the shown tools
	}{
		{"relevant words", ManifestOptions{Budget: 1500, Query: Query{Text: "Will it rain in Oslo tomorrow? Check the forecast."}}, []string{"weather__get_forecast"}},
		{"name mentioned", ManifestOptions{Budget: 1500, Query: Query{Text: "use zz_translate on this"}}, []string{"zz_translate"}},
		{"from context", ManifestOptions{Budget: 1500, Query: Query{Text: "and tomorrow?", Context: []string{"what is the weather forecast in Paris"}}}, []string{"weather__get_forecast"}},
		{"max tools", ManifestOptions{MaxTools: 3, Query: Query{Text: "translate this"}}, []string{"zz_translate"}},
		{"pinned", ManifestOptions{MaxTools: 1, Pinned: []string{"zz_translate"}, Query: Query{Text: "Will it rain in Oslo tomorrow?"}}, []string{"zz_translate"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := c.Manifest(tc.opts)
			if tc.opts.Budget > 0 && EstimateTokens(m.Text) > tc.opts.Budget {
				t.Errorf("manifest takes %d tokens, budget %d", EstimateTokens(m.Text), tc.opts.Budget)
			}
			if tc.opts.MaxTools > 0 && len(m.Shown) > tc.opts.MaxTools {
				t.Errorf("shows %d tools, max %d", len(m.Shown), tc.opts.MaxTools)
			}
			for _, w := range tc.wantShow {
				if !slices.Contains(m.Shown, w) {
					t.Errorf("%s not shown; shown: %v", w, m.Shown)
				}
			}
			if len(m.Shown)+len(m.Listed)+m.Omitted != c.Len() {
				t.Errorf("shown %d + listed %d + omitted %d != %d tools", len(m.Shown), len(m.Listed), m.Omitted, c.Len())
			}
			if !strings.Contains(m.Text, "Also available on request: ") {
				t.Errorf("no also-available line:\n%s", m.Text)
			}
			if m.Omitted > 0 && !strings.Contains(m.Text, fmt.Sprintf("and %d more\n", m.Omitted)) {
				t.Errorf("the count of unnamed tools is missing:\n%s", m.Text)
			}
			// Deterministic.
			if diff := cmp.Diff(m, c.Manifest(tc.opts)); diff != "" {
				t.Errorf("second render differs (-first +second):\n%s", diff)
			}
		})
	}
}

func TestManifestTinyBudget(t *testing.T) {
	c := NewCatalog(bigCatalog(50), rankIndexer)
	m := c.Manifest(ManifestOptions{Budget: 10})
	if len(m.Shown) != 0 || !strings.HasPrefix(m.Text, manifestHeader) {
		t.Errorf("a budget below the instructions should keep only them: %+v", m)
	}
}

func TestRank(t *testing.T) {
	c := NewCatalog([]llm.ToolSpec{
		{Name: "list_dir", Description: "List the entries of a directory."},
		{Name: "read_file", Description: "Read a file's contents."},
		{Name: "write_file", Description: "Write contents to a file, replacing it."},
		{Name: "git__status", Description: "Show the working tree status."},
		{Name: "calculator", Description: "Evaluate an arithmetic expression."},
		{Name: "home__turn_off", Description: "Switch off a light, plug or switch."},
	}, rankIndexer)
	tests := []struct {
		name      string
		q         Query
		wantFirst string
	}{
		{"words", Query{Text: "please read the file notes.txt"}, "read_file"},
		{"stems", Query{Text: "what files are in this directory?"}, "list_dir"},
		{"named outright", Query{Text: "compute 2+2 with the calculator"}, "calculator"},
		{"tool name", Query{Text: "run status"}, "git__status"},
		{"concepts", Query{Text: "kill the lamp"}, "home__turn_off"},
		{"context", Query{Text: "do it again", Context: []string{"write the file out"}}, "write_file"},
		{"used", Query{Text: "and the other one", Used: []string{"git__status"}}, "git__status"},
		{"nothing to go on", Query{}, "list_dir"}, // catalogue order
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			order := c.Rank(tc.q)
			if got := c.tools[order[0]].Name; got != tc.wantFirst {
				t.Errorf("Rank(%+v) first = %s, want %s", tc.q, got, tc.wantFirst)
			}
		})
	}
}

func BenchmarkRank1000(b *testing.B) {
	c := NewCatalog(bigCatalog(1000), rankIndexer)
	defer cpuPerOp(b)()
	for b.Loop() {
		c.Rank(Query{Text: "Will it rain in Oslo tomorrow? Check the weather forecast.", Context: []string{"we talked about invoices before"}})
	}
}

func BenchmarkManifest1000(b *testing.B) {
	c := NewCatalog(bigCatalog(1000), rankIndexer)
	defer cpuPerOp(b)()
	for b.Loop() {
		c.Manifest(ManifestOptions{Budget: 2000, Query: Query{Text: "Will it rain in Oslo tomorrow?"}})
	}
}

func BenchmarkNewCatalog1000(b *testing.B) {
	tools := bigCatalog(1000)
	defer cpuPerOp(b)()
	for b.Loop() {
		NewCatalog(tools, rankIndexer)
	}
}

// cpuPerOp starts measuring the process's CPU time; the returned func
// reports it per op. On a shared machine wall time mostly measures the
// other processes.
func cpuPerOp(b *testing.B) func() {
	b.ResetTimer()
	cpu0 := observe.ProcessCPU()
	return func() {
		b.StopTimer()
		b.ReportMetric(float64((observe.ProcessCPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

func TestManifestDefaultMaxTools(t *testing.T) {
	c := NewCatalog(bigCatalog(200), rankIndexer)
	all := c.Manifest(ManifestOptions{})
	budget := EstimateTokens(all.Text) * 3 / 4 // room for far more than 40, not for all
	tests := []struct {
		name      string
		maxTools  int
		wantShown func(n int) bool
	}{
		{"zero caps at the default once ranking is needed", 0, func(n int) bool { return n == DefaultMaxTools }},
		{"negative means no cap", -1, func(n int) bool { return n > DefaultMaxTools && n < c.Len() }},
		{"explicit cap", 7, func(n int) bool { return n == 7 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := c.Manifest(ManifestOptions{Budget: budget, MaxTools: tc.maxTools, Query: Query{Text: "weather"}})
			if !tc.wantShown(len(m.Shown)) {
				t.Errorf("shows %d tools", len(m.Shown))
			}
		})
	}
	if m := c.Manifest(ManifestOptions{Budget: 2 * EstimateTokens(all.Text)}); len(m.Shown) != c.Len() {
		t.Errorf("every tool fits, yet %d of %d are shown", len(m.Shown), c.Len())
	}
}
