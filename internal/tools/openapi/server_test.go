package openapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// TestAuth checks that the bearer token and extra headers reach both the
// document fetch and the calls, and that a model cannot override them.
func TestAuth(t *testing.T) {
	spec := `{"openapi": "3.0.0", "paths": {"/ping": {"get": {"operationId": "ping",
	  "parameters": [{"name": "X-Api-Key", "in": "header", "schema": {"type": "string"}}]}}}}`
	rec := &recorder{headers: []string{"Authorization", "X-Api-Key"}, reply: func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		_, _ = io.WriteString(w, spec)
	}}
	ts := startServer(t, rec)
	s := loaded(t, &Options{URL: ts.URL, Bearer: "s3cret", Headers: map[string]string{"X-Api-Key": "k1"}})
	callTool(t, findTool(t, s, "ping"), `{"X-Api-Key": "from-model"}`)
	want := map[string]string{"Authorization": "Bearer s3cret", "X-Api-Key": "k1"}
	wantReqs := []seen{
		{Method: "GET", URI: "/openapi.json", Headers: want},
		{Method: "GET", URI: "/ping", Headers: want},
	}
	if diff := cmp.Diff(wantReqs, rec.take()); diff != "" {
		t.Errorf("requests mismatch (-want +got):\n%s", diff)
	}

	// Without the token the document cannot be read.
	s = New("noauth", &Options{URL: ts.URL})
	if err := s.Load(t.Context()); err == nil || !strings.Contains(err.Error(), "401 Unauthorized") {
		t.Errorf("Load without token: %v, want 401", err)
	}
}

func TestAllowDeny(t *testing.T) {
	spec := filepath.Join("testdata", "specs", "petstore30.json")
	tests := []struct {
		name        string
		allow, deny []string
		want        []string
	}{
		{"all", nil, nil, []string{"listPets", "createPet", "getPet", "updatePet", "deletePet"}},
		{"allow", []string{"*Pet"}, nil, []string{"createPet", "getPet", "updatePet", "deletePet"}},
		{"deny wins", []string{"*Pet*"}, []string{"delete*", "update*"}, []string{"listPets", "createPet", "getPet"}},
		{"deny only", nil, []string{"listPets"}, []string{"createPet", "getPet", "updatePet", "deletePet"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := loaded(t, &Options{URL: "http://127.0.0.1:1", Spec: spec, Allow: tt.allow, Deny: tt.deny})
			if diff := cmp.Diff(tt.want, toolNames(s.Tools())); diff != "" {
				t.Errorf("tools mismatch (-want +got):\n%s", diff)
			}
		})
	}
	s := New("bad", &Options{URL: "http://127.0.0.1:1", Spec: spec, Deny: []string{"[x"}})
	if err := s.Load(t.Context()); err == nil || !strings.Contains(err.Error(), `bad allow/deny pattern "[x"`) {
		t.Errorf("Load with a bad pattern: %v", err)
	}
}

// mutableDoc serves a document that the test can replace, and counts
// fetches.
type mutableDoc struct {
	doc     atomic.Value // string
	fetches atomic.Int32
}

func (m *mutableDoc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/openapi.json" {
		_, _ = io.WriteString(w, `{"ok": true}`)
		return
	}
	m.fetches.Add(1)
	d := m.doc.Load().(string)
	if d == "" {
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
		return
	}
	_, _ = io.WriteString(w, d)
}

func opsSpec(names ...string) string {
	var p []string
	for _, n := range names {
		p = append(p, `"/`+n+`": {"get": {"operationId": "`+n+`"}}`)
	}
	return `{"openapi": "3.1.0", "paths": {` + strings.Join(p, ",") + `}}`
}

// TestTTL checks lazy re-reading: nothing happens before the TTL, the next
// use after it re-reads the document, OnChange fires only on change, and a
// tool whose operation disappeared reports tools.ErrUnavailable.
func TestTTL(t *testing.T) {
	md := &mutableDoc{}
	md.doc.Store(opsSpec("a", "b"))
	ts := startServer(t, md)
	var changes atomic.Int32
	s := New("ttl", &Options{URL: ts.URL, TTL: time.Minute, OnChange: func(*Server) { changes.Add(1) }})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var clockMu sync.Mutex
	s.now = func() time.Time { clockMu.Lock(); defer clockMu.Unlock(); return now }
	advance := func(d time.Duration) { clockMu.Lock(); now = now.Add(d); clockMu.Unlock() }

	// Sync on a never-loaded server loads it.
	if err := s.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	toolB := findTool(t, s, "b")
	check := func(step string, fetches, changed int32, names []string) {
		t.Helper()
		if got := md.fetches.Load(); got != fetches {
			t.Errorf("%s: %d fetches, want %d", step, got, fetches)
		}
		if got := changes.Load(); got != changed {
			t.Errorf("%s: %d changes, want %d", step, got, changed)
		}
		if diff := cmp.Diff(names, toolNames(s.Tools())); diff != "" {
			t.Errorf("%s: tools mismatch (-want +got):\n%s", step, diff)
		}
	}
	check("first load", 1, 1, []string{"a", "b"})

	advance(59 * time.Second)
	callTool(t, toolB, `{}`)
	check("before TTL", 1, 1, []string{"a", "b"})

	advance(time.Second)
	callTool(t, toolB, `{}`) // the call re-reads; same document, no change
	check("at TTL, unchanged", 2, 1, []string{"a", "b"})

	md.doc.Store(opsSpec("a", "c"))
	advance(time.Minute)
	_, err := toolB.Call(t.Context(), &tools.CallRequest{})
	if !errors.Is(err, tools.ErrUnavailable) {
		t.Errorf("call of a removed operation: %v, want ErrUnavailable", err)
	}
	check("after change", 3, 2, []string{"a", "c"})

	md.doc.Store("")
	advance(time.Minute)
	if err := s.Sync(t.Context()); err == nil {
		t.Error("Sync of a broken document succeeded")
	}
	check("broken", 4, 3, nil)
	if st := s.Status(); st.State != StateFailed || !strings.Contains(st.LastError, "503") {
		t.Errorf("status = %+v, want failed with 503", st)
	}

	// A failed server is retried once per TTL, not on every use.
	md.doc.Store(opsSpec("a"))
	if err := s.Sync(t.Context()); err != nil {
		t.Errorf("Sync before the retry time: %v", err)
	}
	check("failed, before retry", 4, 3, nil)
	advance(time.Minute)
	if err := s.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	check("recovered", 5, 4, []string{"a"})

	// Refresh reads at once, whatever the TTL.
	md.doc.Store(opsSpec("a", "d"))
	if err := s.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	check("refresh", 6, 5, []string{"a", "d"})
}

// TestNoTTL checks that TTL 0 never re-reads on its own.
func TestNoTTL(t *testing.T) {
	md := &mutableDoc{}
	md.doc.Store(opsSpec("a"))
	ts := startServer(t, md)
	s := loaded(t, &Options{URL: ts.URL})
	s.now = func() time.Time { return time.Now().Add(1000 * time.Hour) }
	callTool(t, findTool(t, s, "a"), `{}`)
	if err := s.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := md.fetches.Load(); got != 1 {
		t.Errorf("%d fetches, want 1", got)
	}
}

// TestFailedServerIsolated checks that a server whose document cannot be
// read fails alone: another server loads and calls normally, concurrently.
func TestFailedServerIsolated(t *testing.T) {
	broken := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	}))
	md := &mutableDoc{}
	md.doc.Store(opsSpec("ok"))
	good := startServer(t, md)

	bad := New("bad", &Options{URL: broken.URL})
	fine := New("fine", &Options{URL: good.URL})
	var wg sync.WaitGroup
	var badErr, fineErr error
	wg.Go(func() { badErr = bad.Load(t.Context()) })
	wg.Go(func() { fineErr = fine.Load(t.Context()) })
	wg.Wait()
	if badErr == nil || fineErr != nil {
		t.Fatalf("Load errors: bad %v, fine %v", badErr, fineErr)
	}
	if st := bad.Status(); st.State != StateFailed || !strings.Contains(st.LastError, "500 Internal Server Error") || len(bad.Tools()) != 0 {
		t.Errorf("bad status = %+v", st)
	}
	if res := callTool(t, findTool(t, fine, "ok"), `{}`); res.IsError {
		t.Errorf("call on the good server: %s", res.Text())
	}
}

// TestConcurrentUse runs calls, refreshes and status reads at once (for the
// race detector).
func TestConcurrentUse(t *testing.T) {
	md := &mutableDoc{}
	md.doc.Store(opsSpec("a", "b"))
	ts := startServer(t, md)
	s := loaded(t, &Options{URL: ts.URL})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 10 {
				switch i % 3 {
				case 0:
					callTool(t, findTool(t, s, "a"), `{}`)
				case 1:
					_ = s.Refresh(t.Context())
				default:
					_ = s.Status()
					_ = s.Tools()
				}
			}
		})
	}
	wg.Wait()
}

// TestLoadCancelled checks that a load cut short by its context changes
// nothing: the server is not marked failed for the caller's impatience.
func TestLoadCancelled(t *testing.T) {
	md := &mutableDoc{}
	md.doc.Store(opsSpec("a"))
	ts := startServer(t, md)
	s := New("c", &Options{URL: ts.URL})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.Load(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Load error = %v, want context.Canceled", err)
	}
	if st := s.Status(); st.State != StatePending || st.LastError != "" {
		t.Errorf("status = %+v, want pending", st)
	}
}
