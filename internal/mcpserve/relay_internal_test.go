package mcpserve

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/store/sqlite"
)

// newTestRelay returns a relay over a real SQLite store (its answers and
// its change feed), as a replica with a shared key has.
func newTestRelay(t *testing.T) (*relay, *sqlite.DB) {
	t.Helper()
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "relay.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return newRelay(db, db, true, &sessionOwners{}, slog.New(slog.DiscardHandler)), db
}

func answerPost(session, body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("Mcp-Session-Id", session)
	return r
}

// TestRelayWithoutStoreLeavesRequests: a replica without a shared store
// serves no answer itself, and the request reads as it came for the SDK.
func TestRelayWithoutStoreLeavesRequests(t *testing.T) {
	rl := newRelay(nil, nil, true, &sessionOwners{}, slog.New(slog.DiscardHandler))
	body := `{"jsonrpc":"2.0","id":"sbAAAAAAAAAAAAAAAA-1","result":{}}`
	r := answerPost("s1", body)
	if rl.serveAnswers(httptest.NewRecorder(), r, "s1") {
		t.Fatal("a relay without a store served an answer")
	}
	if got, _ := io.ReadAll(r.Body); string(got) != body {
		t.Errorf("body after the relay looked = %q, want it as sent", got)
	}
}

// TestRelayLeavesRequestsToTheSDK: only answers are relayed; a request,
// or a mix, is the SDK's to serve.
func TestRelayLeavesRequestsToTheSDK(t *testing.T) {
	rl, _ := newTestRelay(t)
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`[{"jsonrpc":"2.0","id":"sbAAAAAAAAAAAAAAAA-1","result":{}},{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	} {
		if rl.serveAnswers(httptest.NewRecorder(), answerPost("s1", body), "s1") {
			t.Errorf("relay served %s", body)
		}
	}
}

// TestRelayStoresAnswersForOtherReplicas: an answer to a guest this
// replica does not hold is stored for the replica that does, under the
// session and guest it names, and the client gets 202; an ID the gateway
// never sends is dropped.
func TestRelayStoresAnswersForOtherReplicas(t *testing.T) {
	rl, db := newTestRelay(t)
	w := httptest.NewRecorder()
	body := `[{"jsonrpc":"2.0","id":"sbAAAAAAAAAAAAAAAA-3","result":{"action":"accept"}},{"jsonrpc":"2.0","id":"nobody-x","result":{}}]`
	if !rl.serveAnswers(w, answerPost("s1", body), "s1") {
		t.Fatal("relay did not serve an answer for another replica")
	}
	if w.Code != http.StatusAccepted {
		t.Errorf("status = %d, want 202", w.Code)
	}
	got, err := db.TakeMCPAnswers(t.Context(), "s1", "sbAAAAAAAAAAAAAAAA")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !strings.Contains(string(got[0].Body), `"accept"`) {
		t.Errorf("stored answers = %+v, want the one accept", got)
	}
}

// TestRelayGuestOfAnotherSessionNotReached: a client that names the
// prefix of a guest serving another session cannot answer that guest's
// question: the answer is kept under its own session, never delivered.
func TestRelayGuestOfAnotherSessionNotReached(t *testing.T) {
	rl, db := newTestRelay(t)
	g := &guest{raw: "victim", prefix: "sbBBBBBBBBBBBBBBBB", t: &mcp.StreamableServerTransport{SessionID: "victim"}}
	ss := &mcp.ServerSession{}
	leave := rl.join(ss, g)
	defer leave()
	if rl.deliver(context.Background(), "attacker", g.prefix, []byte(`{"jsonrpc":"2.0","id":"sbBBBBBBBBBBBBBBBB-1","result":{}}`)) {
		t.Fatal("an answer on another session was delivered to the victim's guest")
	}
	w := httptest.NewRecorder()
	if !rl.serveAnswers(w, answerPost("attacker", `{"jsonrpc":"2.0","id":"sbBBBBBBBBBBBBBBBB-1","result":{}}`), "attacker") {
		t.Fatal("relay did not serve the answer")
	}
	if got, _ := db.TakeMCPAnswers(t.Context(), "victim", g.prefix); len(got) != 0 {
		t.Errorf("the victim's guest has answers %+v from another session", got)
	}
	if got, _ := db.TakeMCPAnswers(t.Context(), "attacker", g.prefix); len(got) != 1 {
		t.Errorf("answers kept under the sender's session = %d, want 1", len(got))
	}
}

// TestRelayJoinLeave: a guest is known by its session object and, when it
// can ask, by its prefix, until it leaves; one without a prefix is never
// held.
func TestRelayJoinLeave(t *testing.T) {
	rl, _ := newTestRelay(t)
	asking := &guest{raw: "s1", prefix: "sbCCCCCCCCCCCCCCCC"}
	quiet := &guest{raw: "s1"}
	ss1, ss2 := &mcp.ServerSession{}, &mcp.ServerSession{}
	leave1, leave2 := rl.join(ss1, asking), rl.join(ss2, quiet)
	if g, ok := rl.guestOf(ss1); !ok || g != asking {
		t.Error("the asking guest is not known by its session")
	}
	if g, ok := rl.heldGuest(asking.prefix); !ok || g != asking {
		t.Error("the asking guest is not held by its prefix")
	}
	if _, ok := rl.heldGuest(""); ok {
		t.Error("a guest without a prefix is held")
	}
	leave1()
	if _, ok := rl.guestOf(ss1); ok {
		t.Error("a guest that left is still known")
	}
	if _, ok := rl.heldGuest(asking.prefix); ok {
		t.Error("a guest that left is still held")
	}
	if _, ok := rl.guestOf(ss2); !ok {
		t.Error("one guest leaving removed another")
	}
	leave2()
}

// TestRelayAwaitWithoutShare: a relay whose replicas share no key waits
// for nothing, and its stop returns at once.
func TestRelayAwaitWithoutShare(t *testing.T) {
	rl, _ := newTestRelay(t)
	rl.shared = false
	rl.await(t.Context(), &mcp.ServerSession{})()
}
