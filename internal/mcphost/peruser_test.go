package mcphost_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// credStore is the users' connected credentials, as the app's store would
// hand them to the pool.
type credStore struct {
	mu    sync.Mutex
	creds map[string]string // by user; mu guards creds
}

func (cs *credStore) set(user, c string) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if c == "" {
		delete(cs.creds, user)
		return
	}
	cs.creds[user] = c
}

func (cs *credStore) get(_ context.Context, server, user string) (string, error) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c, ok := cs.creds[user]
	if !ok {
		return "", fmt.Errorf("mcp server %s needs your own credentials: connect them at /connections: %w", server, mcphost.ErrNoCredential)
	}
	return c, nil
}

// seenCall is one tools/call as the remote server received it.
type seenCall struct{ auth, text string }

// recordCalls records the Authorization header of every tools/call the
// remote server receives, with the echo text it asks for, and refuses a
// request without one of the accepted tokens.
func recordCalls(accepted map[string]bool, mu *sync.Mutex, seen *[]seenCall) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			auth := r.Header.Get("Authorization")
			if !accepted[auth] {
				http.Error(w, "unknown token", http.StatusUnauthorized)
				return
			}
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var msg struct {
				Method string `json:"method"`
				Params struct {
					Arguments struct {
						Text string `json:"text"`
					} `json:"arguments"`
				} `json:"params"`
			}
			if json.Unmarshal(body, &msg) == nil && msg.Method == "tools/call" {
				mu.Lock()
				*seen = append(*seen, seenCall{auth: auth, text: msg.Params.Arguments.Text})
				mu.Unlock()
			}
			next.ServeHTTP(w, r)
		})
	}
}

func callAs(t *testing.T, tl tools.Tool, user, text string) *tools.Result {
	t.Helper()
	args := json.RawMessage(`{}`)
	if text != "" {
		args, _ = json.Marshal(map[string]string{"text": text})
	}
	res, err := tl.Call(tools.WithUser(t.Context(), user), &tools.CallRequest{Arguments: args})
	if err != nil {
		t.Fatalf("call as %q: %v", user, err)
	}
	return res
}

// TestPerUserRemoteCredentials is the done-when: two users of one
// remote server each reach it with their own token, checked at the remote
// end; a user with none gets a clear error naming the server and where to
// connect; a changed or removed credential stops being used at once.
func TestPerUserRemoteCredentials(t *testing.T) {
	var (
		mu   sync.Mutex
		seen []seenCall
	)
	accepted := map[string]bool{"Bearer listing": true, "Bearer alice-token": true, "Bearer bob-token": true, "Bearer alice-new": true}
	sc, _ := mcptest.HTTPServer(t, "remote", recordCalls(accepted, &mu, &seen))
	sc.Headers = map[string]string{"Authorization": "Bearer listing"}
	sc.PerUser = &mcphost.PerUserConfig{Header: "Authorization", Prefix: "Bearer "}
	cs := &credStore{creds: map[string]string{"alice": "alice-token", "bob": "bob-token"}}
	opts := testOptions()
	opts.UserCredential = cs.get
	p := startPool(t, []mcphost.ServerConfig{sc}, opts)
	echo := findToolOf(t, p, "remote", "echo")

	var wg sync.WaitGroup
	for _, user := range []string{"alice", "bob", "alice", "bob", "bob", "alice"} {
		wg.Go(func() {
			if res := callAs(t, echo, user, user); res.IsError || res.Text() != user {
				t.Errorf("%s's call: %+v", user, res)
			}
		})
	}
	wg.Wait()
	res := callAs(t, echo, "carol", "carol")
	if !res.IsError || !strings.Contains(res.Text(), "remote") || !strings.Contains(res.Text(), "/connections") {
		t.Errorf("carol without credentials got %q, want an error naming the server and where to connect", res.Text())
	}

	// Alice replaces her token, then Bob disconnects.
	cs.set("alice", "alice-new")
	callAs(t, echo, "alice", "alice-after")
	cs.set("bob", "")
	if res := callAs(t, echo, "bob", "bob-after"); !res.IsError {
		t.Errorf("bob's call after disconnecting: %q, want an error", res.Text())
	}

	mu.Lock()
	defer mu.Unlock()
	want := map[string]string{"alice": "Bearer alice-token", "bob": "Bearer bob-token", "alice-after": "Bearer alice-new"}
	count := map[string]int{}
	for _, c := range seen {
		if w, ok := want[c.text]; !ok || c.auth != w {
			t.Errorf("the remote server got the call for %q with %q, want %q", c.text, c.auth, w)
		}
		count[c.text]++
	}
	if count["alice"] != 3 || count["bob"] != 3 || count["alice-after"] != 1 || count["carol"] != 0 || count["bob-after"] != 0 {
		t.Errorf("calls at the remote end %v, want alice 3, bob 3, alice-after 1, none for carol or bob-after", count)
	}
}

// TestPerUserStdioInstances: each user's calls run in a process of their
// own that has their env and not another user's; the number of processes
// is bounded, and the least recently used idle one makes room.
func TestPerUserStdioInstances(t *testing.T) {
	sc := mcptest.StdioServer(t, "box")
	sc.PerUser = &mcphost.PerUserConfig{Env: mcptest.EnvSecret, MaxInstances: 2}
	cs := &credStore{creds: map[string]string{}}
	for _, u := range []string{"alice", "bob", "carol"} {
		cs.set(u, u+"-secret")
	}
	opts := testOptions()
	opts.UserCredential = cs.get
	p := startPool(t, []mcphost.ServerConfig{sc}, opts)
	who := findToolOf(t, p, "box", "whoami")

	got := map[string]string{}
	for _, u := range []string{"alice", "bob"} {
		res := callAs(t, who, u, "")
		if !strings.HasSuffix(res.Text(), " secret="+u+"-secret") {
			t.Fatalf("%s's process answered %q, want their own secret only", u, res.Text())
		}
		got[u] = res.Text()
	}
	if got["alice"] == got["bob"] {
		t.Fatalf("alice and bob share a process: %q", got["alice"])
	}
	catalogue := statusOf(t, p, "box").PID
	for u, s := range got {
		if strings.HasPrefix(s, fmt.Sprintf("pid=%d ", catalogue)) {
			t.Errorf("%s's call ran in the catalogue's process %d", u, catalogue)
		}
	}
	if n := mcphost.PerUserRunning(p, "box"); n != 2 {
		t.Fatalf("%d instances run, want 2", n)
	}
	// Carol makes a third: the least recently used (alice) is stopped.
	if res := callAs(t, who, "carol", ""); !strings.HasSuffix(res.Text(), " secret=carol-secret") {
		t.Fatalf("carol's process answered %q", res.Text())
	}
	if n := mcphost.PerUserRunning(p, "box"); n != 2 {
		t.Errorf("%d instances run after eviction, want 2", n)
	}
	if pid := mcphost.PerUserPID(p, "box", "alice"); pid != 0 {
		t.Errorf("alice's instance still runs as %d after eviction", pid)
	}
}

// TestPerUserIdleStop: an instance idle longer than the timeout is stopped;
// one with a call in flight or recently used is kept.
func TestPerUserIdleStop(t *testing.T) {
	sc := mcptest.StdioServer(t, "box")
	// No env: the user supplies nothing, and still gets a process of their own.
	sc.PerUser = &mcphost.PerUserConfig{IdleTimeout: 1 << 40} // the reaper never fires by itself
	p := startPool(t, []mcphost.ServerConfig{sc}, nil)
	callAs(t, findToolOf(t, p, "box", "whoami"), "alice", "")
	mcphost.PerUserReap(p, "box", 0)
	if n := mcphost.PerUserRunning(p, "box"); n != 1 {
		t.Fatalf("a just-used instance was stopped: %d run", n)
	}
	mcphost.PerUserReap(p, "box", 2<<40)
	if n := mcphost.PerUserRunning(p, "box"); n != 0 {
		t.Fatalf("an idle instance still runs: %d", n)
	}
}

// TestPerUserWithoutStore: a per-user server on a pool with no credential
// source refuses calls rather than falling back to the shared connection.
func TestPerUserWithoutStore(t *testing.T) {
	sc := mcptest.StdioServer(t, "box")
	sc.PerUser = &mcphost.PerUserConfig{Env: mcptest.EnvSecret}
	p := startPool(t, []mcphost.ServerConfig{sc}, nil)
	if res := callAs(t, findToolOf(t, p, "box", "whoami"), "alice", ""); !res.IsError {
		t.Errorf("got %q, want a tool error", res.Text())
	}
}
