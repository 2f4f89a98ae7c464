package security

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUploadsReachFileTools: a file uploaded into a conversation is written
// under uploads.dir, inside the root the real npm server-filesystem
// serves, and that server reads it by the path Switchboard gives; the
// built-in read_upload answers only inside the conversation (the tools
// API has none); Switchboard's database stays out of reach of both file
// tools.
func TestUploadsReachFileTools(t *testing.T) {
	root, node := npmRoot(t, "@modelcontextprotocol/server-filesystem")
	fsScript := filepath.Join(root, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
	model := newFakeModel(t, nil)
	dir := t.TempDir()
	shared := filepath.Join(dir, "shared")
	if err := os.MkdirAll(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := modelConfig(model.URL) + fmt.Sprintf("data: ./data\nuploads: {dir: %q, maxBytes: 4096}\nmcpServers:\n  files: {command: %q, args: [%q, %q]}\n",
		filepath.Join(shared, "uploads"), node, fsScript, shared)
	writeFile(t, filepath.Join(dir, "switchboard.yaml"), cfg)
	s := serve(t, dir)

	code, out := s.call(t, http.MethodPost, "/api/v1/conversations", "", map[string]string{"title": "t"})
	if code != http.StatusCreated {
		t.Fatalf("conversation: %d %s", code, out)
	}
	var conv struct{ ID string }
	_ = json.Unmarshal([]byte(out), &conv)
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, s.base+"/api/v1/conversations/"+conv.ID+"/uploads?name="+url.QueryEscape("q3 sales.csv"), strings.NewReader("region,total\nnorth,42\n"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("upload: %d %s", resp.StatusCode, b)
	}
	var up struct{ ID, Path, MIMEType string }
	_ = json.Unmarshal(b, &up)
	if up.MIMEType != "text/csv" || !strings.HasPrefix(up.Path, filepath.Join(shared, "uploads")+"/") {
		t.Fatalf("upload = %s", b)
	}

	read := func(tool string, args map[string]any) string {
		t.Helper()
		var code int
		var out string
		eventually(t, "the filesystem server", func() bool {
			code, out = s.call(t, http.MethodPost, "/api/v1/tools/"+tool+"/call", "", map[string]any{"arguments": args})
			return code != http.StatusNotFound || !strings.Contains(out, "no tool")
		})
		return fmt.Sprintf("%d %s", code, out)
	}
	if got := read("files__read_text_file", map[string]any{"path": up.Path}); !strings.Contains(got, "north,42") {
		t.Errorf("server-filesystem reading the upload's path: %s", got)
	}
	if got := read("read_upload", map[string]any{"id": up.ID}); strings.Contains(got, "north,42") || !strings.Contains(got, "no upload") {
		t.Errorf("read_upload outside the conversation: %s", got)
	}
	db := filepath.Join(dir, "data", "switchboard.db")
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("the database is not where the test expects it: %v", err)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"files__read_text_file", map[string]any{"path": db}},
		{"files__read_text_file", map[string]any{"path": filepath.Join(shared, "uploads", "..", "..", "data", "switchboard.db")}},
		{"read_file", map[string]any{"path": db}},
		{"read_file", map[string]any{"path": filepath.Join(dir, "switchboard.yaml")}},
	} {
		if got := read(tc.tool, tc.args); strings.Contains(got, "SQLite format") || strings.Contains(got, "mcpServers:") || !strings.Contains(got, "rror") && !strings.Contains(got, "denied") && !strings.Contains(got, "outside") {
			t.Errorf("%s %v reached Switchboard's own file: %s", tc.tool, tc.args, got)
		}
	}
}
