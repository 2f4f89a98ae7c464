package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSummaryModel(t *testing.T) {
	c := validBase()
	cheap := c.Models["default"]
	cheap.Model = "gpt-4o-nano"
	c.Models["cheap"] = cheap
	c.Context.SummaryModel = "cheap"
	bob := c.Agents["bob"]
	bob.Context.SummaryModel = "default"
	c.Agents["bob"] = bob
	if err := c.Validate(); err != nil {
		t.Fatalf("valid summary models refused: %v", err)
	}
	for agent, want := range map[string]string{"": "cheap", "bob": "default", "nobody": "cheap"} {
		if got := c.SummaryModelFor(agent); got != want {
			t.Errorf("SummaryModelFor(%q) = %q, want %q", agent, got, want)
		}
	}

	c.Context.SummaryModel = "chaep"
	bob.Context.SummaryModel = "gone"
	c.Agents["bob"] = bob
	got := problemsOf(c.Validate())
	want := []string{
		`context.summaryModel: no model named "chaep" to write summaries; the models are cheap, default, or leave summaryModel out to summarise with the conversation's own model`,
		`agents.bob.context.summaryModel: no model named "gone" to write summaries; the models are cheap, default, or leave summaryModel out to summarise with the conversation's own model`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems mismatch (-want +got):\n%s", diff)
	}
}

func TestUploadsConfig(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
		want string // a problem that must be reported; "" for none
	}{
		{"no dir", func(*Config) {}, ""},
		{"dir inside a builtin root", func(c *Config) { c.Uploads.Dir = "/work/uploads" }, ""},
		{"dir inside an mcp root", func(c *Config) { c.MCPRoots = []string{"file:///srv/shared"}; c.Uploads.Dir = "/srv/shared/up" }, ""},
		{"dir inside a server's root", func(c *Config) {
			editMCP("files", func(s *MCPServer) { s.Roots = []string{"/srv/files"} })(c)
			c.Uploads.Dir = "/srv/files/up"
		}, ""},
		{"dir inside no root", func(c *Config) { c.Uploads.Dir = "/elsewhere/up" }, `uploads.dir: "/elsewhere/up" is inside no root`},
		{"a root's sibling with a common prefix", func(c *Config) { c.Uploads.Dir = "/work2/up" }, "is inside no root"},
		{"dir in the data directory", func(c *Config) { c.Builtin.Roots = []string{"/"}; c.Uploads.Dir = "/data/up" }, "overlaps the data directory"},
		{"dir holding the data directory", func(c *Config) { c.Builtin.Roots = []string{"/"}; c.Uploads.Dir = "/" }, "overlaps the data directory"},
		{"relative dir", func(c *Config) { c.Uploads.Dir = "up" }, "is not an absolute path"},
		{"negative bound", func(c *Config) { c.Uploads.MaxBytes = -1 }, "uploads.maxBytes: -1 is out of range"},
		{"huge bound", func(c *Config) { c.Uploads.MaxBytes = MaxUploadMaxBytes + 1 }, "uploads.maxBytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := validBase()
			tt.edit(c)
			got := strings.Join(problemsOf(c.Validate()), "\n")
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("problems:\n%s\nwant one containing %q", got, tt.want)
			}
		})
	}
	if got := (Uploads{}).UploadMaxBytes(); got != DefaultUploadMaxBytes {
		t.Errorf("default bound %d", got)
	}
}
