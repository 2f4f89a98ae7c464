package config

import (
	"strings"
	"testing"
	"time"
)

func TestDecodeMCPServer(t *testing.T) {
	s, err := DecodeMCPServer("files", []byte(`{"command":"mcp-files","args":["--root","/tmp"],"env":{"TOKEN":"t0k"},"timeout":"90s","sandbox":true}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Command != "mcp-files" || s.Env["TOKEN"] != "t0k" || s.Timeout != 90*time.Second ||
		s.ShutdownTimeout != DefaultShutdownTimeout || s.Sandbox == nil || !s.Sandbox.Enabled {
		t.Errorf("decoded %+v", s)
	}
}

func TestDecodeEntryRefuses(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"command":"x","env":{"K":"${HOME}"}}`, "not expanded from the environment"},
		{`{"command":"x","bogus":1}`, "bogus"},
		{`{"command":"x","timeout":"soon"}`, "duration"},
		{`[1]`, "mcpServers.files"},
		{``, "empty"},
	} {
		_, err := DecodeMCPServer("files", []byte(tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DecodeMCPServer(%s) = %v, want an error saying %q", tc.body, err, tc.want)
		}
	}
	if _, err := DecodeOpenAPIServer("svc", []byte(`{"url":"http://127.0.0.1:1","bearer":"${TOKEN}"}`)); err == nil {
		t.Error("DecodeOpenAPIServer expanded ${TOKEN}")
	}
}

func TestWithEntriesFileWins(t *testing.T) {
	c := Default()
	c.MCPServers = map[string]MCPServer{"files": {Command: "from-file"}}
	c.Models = map[string]Model{"default": {Model: "file-model"}}
	m := c.WithEntries(Entries{
		MCPServers:     map[string]MCPServer{"files": {Command: "from-store"}, "extra": {Command: "x"}},
		OpenAPIServers: map[string]OpenAPIServer{"files": {URL: "http://x"}},
		Models:         map[string]Model{"default": {Model: "store-model"}, "other": {Model: "o"}},
	})
	if m.Models["default"].Model != "file-model" || m.Models["other"].Model != "o" || len(c.Models) != 1 {
		t.Errorf("merged models %+v, file's %+v", m.Models, c.Models)
	}
	if m.MCPServers["files"].Command != "from-file" || m.MCPServers["extra"].Command != "x" || len(m.OpenAPIServers) != 0 {
		t.Errorf("merged servers %+v, services %+v", m.MCPServers, m.OpenAPIServers)
	}
	if _, ok := c.MCPServers["extra"]; ok {
		t.Error("WithEntries changed the file's map")
	}
}
