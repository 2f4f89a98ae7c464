package mcpserve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/mcpserve"
)

// FuzzSessionRequest sends arbitrary bodies and session IDs on an
// initialized session: the handler must answer every one (the direct path
// or the SDK), never panic, never answer 2xx on a session ID that is not
// the caller's, and a JSON answer must be valid JSON.
func FuzzSessionRequest(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"files__read","arguments":{"a":1}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"files__read"}}`,
		`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"files__read"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mail__send","arguments":[]}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"files__read"}}]`,
		`{"jsonrpc":"2.0","id":1e999,"method":"tools/call"}`,
		`{"tools/call"`,
		// Keys that differ from the protocol's only by case (issue 20).
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","METHOD":"tools/call","params":{"name":"files__read"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"files__read"},"PARAMS":{"name":"mail__send"}}`,
		`{"JSONRPC":"2.0","Id":1,"Method":"tools/call","Params":{"Name":"files__read"}}`,
	} {
		f.Add(seed, "")
		f.Add(seed, "x.y")
	}
	srv := mcpserve.New(catalogue(), gate.New(nil), nil)
	f.Cleanup(func() { srv.Close() })
	h := srv.Handler()
	do := func(session, body string) *httptest.ResponseRecorder {
		return postAs(context.Background(), h, session, body)
	}
	init := do("", initializeBody)
	id := init.Header().Get("Mcp-Session-Id")
	if id == "" {
		f.Fatalf("initialize: %d %s", init.Code, init.Body)
	}
	do(id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	f.Fuzz(func(t *testing.T, body, other string) {
		session := id
		if other != "" {
			session = other
		}
		w := do(session, body)
		if other != "" && other != id && w.Code < 300 && !strings.HasPrefix(other, strings.SplitN(id, ".", 2)[0]) {
			t.Errorf("session %q (not alice's) answered %d: %s", other, w.Code, w.Body)
		}
		if w.Header().Get("Content-Type") == "application/json" && w.Body.Len() > 0 && !json.Valid(bytes.TrimSpace(w.Body.Bytes())) {
			t.Errorf("invalid JSON answer to %q: %s", body, w.Body)
		}
	})
}
