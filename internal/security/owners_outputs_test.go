package security

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ownersConfig is the stack's configuration for the ownership tests:
// results cut at 2000 bytes (the rest kept for read_tool_output), an
// approval timeout long enough to attack a pending approval, and a named
// agent whose servers a non-admin tries to change.
const ownersConfig = `results: {maxBytes: 2000}
approvals: {timeout: 30s}
agents:
  helper: {description: "Helps with the test server.", servers: [test]}
`

// ownerOutputID finds a stored output's ID in a cut result.
var ownerOutputID = regexp.MustCompile(`out_[0-9a-f-]{36}`)

// TestOwnersStoredOutputIsItsUsers: a result too long for the model is
// kept whole under an output ID that the result's note gives. The ID is
// all another user needs to try: bob, who knows alice's ID (from a shared
// screen, a log, a guess), asks read_tool_output for it on every surface
// he has (the tools API, /mcp, a chat run) and so does the local user at
// the terminal; each gets "not found", and none sees a byte of it. Alice
// reads her own.
func TestOwnersStoredOutputIsItsUsers(t *testing.T) {
	s := newStack(t, ownersConfig)
	const secret = "ALICE-PRIVATE-NOTES-7f3a"
	notes := filepath.Join(s.dir, "alice-notes.txt")
	// The secret is in the middle, the part a cut result leaves out.
	pad := strings.Repeat("alice's long notes\n", 200)
	if err := os.WriteFile(notes, []byte(pad+secret+"\n"+pad), 0o600); err != nil {
		t.Fatal(err)
	}
	alice := s.user(t, "alice", "read_file", "read_tool_output")
	bob := s.user(t, "bob", "read_tool_output", "read_file")

	code, body := s.do(t, alice, http.MethodPost, "/api/v1/tools/read_file/call", map[string]any{"arguments": map[string]any{"path": notes}})
	id := ownerOutputID.FindString(string(body))
	if code != http.StatusOK || id == "" || strings.Contains(string(body), secret) {
		t.Fatalf("alice reading her long file: %d %d bytes ...%s; want a cut result naming an output ID", code, len(body), body[max(0, len(body)-600):])
	}
	// A page small enough to come back whole, where the secret is.
	read := map[string]any{"arguments": map[string]any{"id": id, "offset": len(pad), "limit": 200}}

	// Alice reads her own output in full.
	if code, body := s.do(t, alice, http.MethodPost, "/api/v1/tools/read_tool_output/call", read); code != http.StatusOK || !strings.Contains(string(body), secret) {
		t.Fatalf("alice reading her own output: %d %.300s", code, body)
	}

	refused := func(surface, got string) {
		t.Helper()
		if strings.Contains(got, secret) || strings.Contains(got, "long notes") {
			t.Errorf("%s: another user read alice's output:\n%.500s", surface, got)
		}
		if !strings.Contains(got, "no stored output with id") {
			t.Errorf("%s: %.500s; want the not-found answer", surface, got)
		}
	}
	// The tools API.
	_, body = s.do(t, bob, http.MethodPost, "/api/v1/tools/read_tool_output/call", read)
	refused("bob via the tools API", string(body))

	// The MCP gateway.
	cs, err := mcpConnect(t, s.base+"/mcp", bob)
	if err != nil {
		t.Fatalf("bob's MCP session: %v", err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "read_tool_output", Arguments: map[string]any{"id": id, "offset": len(pad), "limit": 200}})
	if err != nil {
		t.Fatalf("bob's read_tool_output over MCP: %v", err)
	}
	var mcpText strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			mcpText.WriteString(tc.Text)
		}
	}
	if !res.IsError {
		t.Errorf("bob's read_tool_output over MCP succeeded")
	}
	refused("bob via /mcp", mcpText.String())

	// A chat run: bob's assistant calls it for him.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	_, resp := s.postMessage(t, ctx, bob, fmt.Sprintf(`please call read_tool_output {"id":%q,"offset":%d,"limit":200}`, id, len(pad)))
	stream, _ := sseApprovals(resp.Body, func(string) {})
	resp.Body.Close()
	if !strings.Contains(stream, "read_tool_output") {
		t.Fatalf("bob's run did not call read_tool_output:\n%s", stream)
	}
	refused("bob via a chat run", stream)

	// The local user at the terminal is someone else too.
	r := switchboard(t, s.dir, "call", "read_tool_output", fmt.Sprintf(`{"id":%q,"offset":%d,"limit":200}`, id, len(pad)))
	refused("the local user via `switchboard call`", r.stdout+r.stderr)

	// Alice still reads it after all that.
	if code, body := s.do(t, alice, http.MethodPost, "/api/v1/tools/read_tool_output/call", read); code != http.StatusOK || !strings.Contains(string(body), secret) {
		t.Errorf("alice reading her output again: %d %.300s", code, body)
	}
}
