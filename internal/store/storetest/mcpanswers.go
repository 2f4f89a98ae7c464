package storetest

import (
	"context"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// testMCPAnswers relays answers between replicas: each is taken once, by
// session and target, in the order put; bad ones are refused.
func testMCPAnswers(t *testing.T, s store.Store) {
	ctx := t.Context()
	put := func(session, target, body string) {
		t.Helper()
		if err := s.PutMCPAnswer(ctx, store.MCPAnswer{Session: session, Target: target, Body: []byte(body)}); err != nil {
			t.Fatalf("PutMCPAnswer: %v", err)
		}
	}
	put("s1", "", `{"jsonrpc":"2.0","id":1,"result":{}}`)
	put("s1", "g7", `{"jsonrpc":"2.0","id":"g7-1","result":{"action":"accept"}}`)
	put("s1", "", `{"jsonrpc":"2.0","id":2,"result":{}}`)
	put("s2", "", `{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}`)

	got, err := s.TakeMCPAnswers(ctx, "s1", "")
	if err != nil || len(got) != 2 || string(got[0].Body) != `{"jsonrpc":"2.0","id":1,"result":{}}` ||
		string(got[1].Body) != `{"jsonrpc":"2.0","id":2,"result":{}}` || got[0].CreatedAt.IsZero() {
		t.Fatalf("TakeMCPAnswers(s1, \"\") = %+v, %v; want ids 1 then 2", got, err)
	}
	if again, err := s.TakeMCPAnswers(ctx, "s1", ""); err != nil || len(again) != 0 {
		t.Errorf("taking again: %+v, %v; want none", again, err)
	}
	if g, err := s.TakeMCPAnswers(ctx, "s1", "g7"); err != nil || len(g) != 1 || g[0].Target != "g7" {
		t.Errorf("TakeMCPAnswers(s1, g7) = %+v, %v", g, err)
	}
	for _, bad := range []store.MCPAnswer{{Body: []byte(`{}`)}, {Session: "s"}, {Session: "s", Body: []byte(`{no`)}} {
		wantErr(t, "PutMCPAnswer(bad)", s.PutMCPAnswer(ctx, bad), store.ErrInvalid)
	}

	// Racing takers: each answer goes to exactly one.
	const n = 20
	for range n {
		put("race", "", `{"jsonrpc":"2.0","id":3,"result":{}}`)
	}
	var mu sync.Mutex
	taken := 0
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			g, err := s.TakeMCPAnswers(context.WithoutCancel(ctx), "race", "")
			if err != nil {
				t.Errorf("racing TakeMCPAnswers: %v", err)
			}
			mu.Lock()
			taken += len(g)
			mu.Unlock()
		})
	}
	wg.Wait()
	if taken != n {
		t.Errorf("racing takers got %d answers, want %d", taken, n)
	}
}
