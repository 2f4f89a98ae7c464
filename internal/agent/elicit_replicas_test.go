package agent_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/postgres"
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// lockedBuffer is a log sink several goroutines write.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestElicitationAnsweredOnAnotherReplica runs the test MCP server's elicit
// tool on replica a of two sharing one PostgreSQL database, and answers
// the form on replica b (as the balancer may send the person's browser
// there). The server gets the values only when they fit the requested
// schema; values written straight into the store that do not fit cancel.
// Either way the values are gone from the database once a has read them,
// and never appear in a's log.
func TestElicitationAnsweredOnAnotherReplica(t *testing.T) {
	const secret = "Zyx-4471-secret"
	cases := []struct {
		name string
		// answer decides the approval through replica b or its store.
		answer func(t *testing.T, b *env, db *postgres.DB, id string)
		server string
		action string
		state  store.ApprovalState
	}{
		{"accepted on b", func(t *testing.T, b *env, _ *postgres.DB, id string) {
			if err := b.rt.Decide(t.Context(), id, agent.Decision{Kind: agent.ApproveOnce, By: "ann", Content: map[string]any{"name": secret}}); err != nil {
				t.Errorf("Decide on b: %v", err)
			}
		}, "action=accept name=" + secret, tools.ElicitAccept, store.ApprovalApproved},
		{"wrong type in the store", func(t *testing.T, _ *env, db *postgres.DB, id string) {
			if _, err := db.DecideApproval(t.Context(), id, store.Decision{State: store.ApprovalApproved, Content: json.RawMessage(`{"name":4471}`)}); err != nil {
				t.Errorf("DecideApproval: %v", err)
			}
		}, "action=cancel name=<nil>", tools.ElicitCancel, store.ApprovalExpired},
		{"extra field in the store", func(t *testing.T, _ *env, db *postgres.DB, id string) {
			if _, err := db.DecideApproval(t.Context(), id, store.Decision{
				State: store.ApprovalApproved, Content: json.RawMessage(`{"name":"` + secret + `","admin":"` + secret + `"}`),
			}); err != nil {
				t.Errorf("DecideApproval: %v", err)
			}
		}, "action=cancel name=<nil>", tools.ElicitCancel, store.ApprovalExpired},
		{"accepted without values in the store", func(t *testing.T, _ *env, db *postgres.DB, id string) {
			if _, err := db.DecideApproval(t.Context(), id, store.Decision{State: store.ApprovalApproved}); err != nil {
				t.Errorf("DecideApproval: %v", err)
			}
		}, "action=cancel name=<nil>", tools.ElicitCancel, store.ApprovalExpired},
		{"declined on b", func(t *testing.T, b *env, _ *postgres.DB, id string) {
			if err := b.rt.Decide(t.Context(), id, agent.Decision{Kind: agent.Deny, By: "ann"}); err != nil {
				t.Errorf("Decide on b: %v", err)
			}
		}, "action=decline name=<nil>", tools.ElicitDecline, store.ApprovalDenied},
		{"cancelled on b", func(t *testing.T, b *env, _ *postgres.DB, id string) {
			if err := b.rt.Decide(t.Context(), id, agent.Decision{Kind: agent.Cancel, By: "ann"}); err != nil {
				t.Errorf("Decide on b: %v", err)
			}
		}, "action=cancel name=<nil>", tools.ElicitCancel, store.ApprovalExpired},
	}
	dsn := storetest.PostgresSchema(t)
	var dbs [2]*postgres.DB
	for i := range dbs {
		db, err := postgres.Open(t.Context(), dsn, nil)
		if err != nil {
			t.Fatalf("opening replica %d: %v", i, err)
		}
		t.Cleanup(func() { _ = db.Close() })
		dbs[i] = db
	}
	for !dbs[0].Listening() {
		time.Sleep(5 * time.Millisecond) // the feed connects just after Open
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var logs lockedBuffer
			a, _ := mcpEnv(t, llmtest.NewFakeProvider(calls("c1", "test__elicit", `{}`), say("ok")), func(o *envOptions) {
				o.Approvals, o.History = dbs[0], dbs[0]
				o.Limits.ApprovalTimeout = time.Minute
				o.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			})
			b := newEnv(t, llmtest.NewFakeProvider(), func(o *envOptions) {
				o.Approvals, o.History = dbs[1], dbs[1]
				o.Limits.ApprovalTimeout = time.Minute
			})
			conv := "elicit-" + string(rune('a'+i))
			if _, err := dbs[0].CreateConversation(t.Context(), store.Conversation{ID: conv}); err != nil {
				t.Fatalf("CreateConversation: %v", err)
			}
			var (
				evs      []agent.Event
				id       string
				answered time.Time
				took     time.Duration
			)
			for ev, err := range a.rt.Run(t.Context(), &agent.Request{ConversationID: conv, Message: "ask my name"}) {
				if err != nil {
					t.Fatalf("run: %v", err)
				}
				evs = append(evs, ev)
				if ev.Kind == agent.EventApproval {
					id = ev.Approval.ID
					c.answer(t, b, dbs[1], id)
					answered = time.Now()
				}
				if ev.Kind == agent.EventApprovalResolved {
					took = time.Since(answered)
				}
			}
			// The change feed wakes a at once; without it a would wait for
			// the approval timeout.
			if took > 5*time.Second {
				t.Errorf("the answer took %s to reach a", took)
			}
			ends := find(evs, agent.EventToolEnd)
			if len(ends) != 1 || ends[0].Result.Text != c.server {
				t.Errorf("tool ends = %+v, want the server on a to say %q", ends, c.server)
			}
			res := find(evs, agent.EventApprovalResolved)
			if len(res) != 1 || res[0].Approval.State != c.state || res[0].Elicit == nil || res[0].Elicit.Action != c.action {
				t.Fatalf("resolved events = %+v, want state %s, action %s", res, c.state, c.action)
			}
			got, err := dbs[1].GetApproval(t.Context(), id)
			if err != nil {
				t.Fatalf("GetApproval: %v", err)
			}
			if got.Content != nil {
				t.Errorf("the form values are still stored after a read them: %s", got.Content)
			}
			if strings.Contains(logs.String(), secret) || strings.Contains(logs.String(), "4471") {
				t.Errorf("a's log carries the form values:\n%s", logs.String())
			}
		})
	}
}
