package storetest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

func testAgents(t *testing.T, s store.Store) {
	bob := store.Agent{Name: "bob", Description: "e-mail", Model: "default", Prompt: "You handle e-mail.", Servers: []string{"email"}, Router: "always", Source: store.SourceConfig}
	got, err := s.CreateAgent(ctx(t), bob)
	must(t, "CreateAgent", err)
	want := bob
	want.Version = 1
	diff(t, "CreateAgent", want, got, ignoreTimes)
	if got.CreatedAt.IsZero() || !got.UpdatedAt.Equal(got.CreatedAt) {
		t.Errorf("CreateAgent times: created %v updated %v", got.CreatedAt, got.UpdatedAt)
	}
	_, err = s.CreateAgent(ctx(t), bob)
	wantErr(t, "CreateAgent with a taken name", err, store.ErrConflict)
	_, err = s.CreateAgent(ctx(t), store.Agent{})
	wantErr(t, "CreateAgent without a name", err, store.ErrInvalid)
	_, err = s.CreateAgent(ctx(t), store.Agent{Name: "x", Source: "elsewhere"})
	wantErr(t, "CreateAgent with an unknown source", err, store.ErrInvalid)

	all, err := s.CreateAgent(ctx(t), store.Agent{Name: "all"})
	must(t, "CreateAgent", err)
	none, err := s.CreateAgent(ctx(t), store.Agent{Name: "none", Servers: []string{}})
	must(t, "CreateAgent", err)
	if all.Source != store.SourceRuntime {
		t.Errorf("empty source stored as %q, want %q", all.Source, store.SourceRuntime)
	}
	list, err := s.ListAgents(ctx(t))
	must(t, "ListAgents", err)
	diff(t, "ListAgents", []store.Agent{all, got, none}, list)
	// nil (every server) and [] (no server) must stay apart.
	if list[0].Servers != nil || list[2].Servers == nil || len(list[2].Servers) != 0 {
		t.Errorf("servers: all=%#v none=%#v, want nil and []string{}", list[0].Servers, list[2].Servers)
	}

	upd := got
	upd.Prompt = "You handle mail and calendars."
	upd.Servers = nil
	v2, err := s.UpdateAgent(ctx(t), upd)
	must(t, "UpdateAgent", err)
	if v2.Version != 2 || v2.Prompt != upd.Prompt || v2.Servers != nil || !v2.CreatedAt.Equal(got.CreatedAt) {
		t.Errorf("UpdateAgent returned %+v", v2)
	}
	stale := got
	stale.Prompt = "stale"
	_, err = s.UpdateAgent(ctx(t), stale)
	wantErr(t, "UpdateAgent at a stale version", err, store.ErrConflict)
	fresh, err := s.GetAgent(ctx(t), "bob")
	must(t, "GetAgent", err)
	diff(t, "GetAgent after update", v2, fresh)
	_, err = s.UpdateAgent(ctx(t), store.Agent{Name: "ghost", Version: 1})
	wantErr(t, "UpdateAgent of a missing agent", err, store.ErrNotFound)

	must(t, "DeleteAgent", s.DeleteAgent(ctx(t), "bob"))
	_, err = s.GetAgent(ctx(t), "bob")
	wantErr(t, "GetAgent after delete", err, store.ErrNotFound)
	wantErr(t, "DeleteAgent twice", s.DeleteAgent(ctx(t), "bob"), store.ErrNotFound)
}

func testAgentServers(t *testing.T, s store.Store) {
	a, err := s.CreateAgent(ctx(t), store.Agent{Name: "bob", Servers: []string{"mail"}})
	must(t, "CreateAgent", err)
	steps := []struct {
		name    string
		assign  bool
		server  string
		want    []string
		version int64
	}{
		{"assign new", true, "calendar", []string{"calendar", "mail"}, 2},
		{"assign again changes nothing", true, "mail", []string{"calendar", "mail"}, 2},
		{"remove", false, "mail", []string{"calendar"}, 3},
		{"remove unassigned changes nothing", false, "mail", []string{"calendar"}, 3},
		{"remove last leaves none", false, "calendar", []string{}, 4},
	}
	for _, st := range steps {
		if st.assign {
			a, err = s.AssignServer(ctx(t), "bob", st.server)
		} else {
			a, err = s.RemoveServer(ctx(t), "bob", st.server)
		}
		must(t, st.name, err)
		diff(t, st.name+" servers", st.want, a.Servers)
		if a.Version != st.version {
			t.Errorf("%s: version %d, want %d", st.name, a.Version, st.version)
		}
	}
	_, err = s.CreateAgent(ctx(t), store.Agent{Name: "all"})
	must(t, "CreateAgent", err)
	a, err = s.AssignServer(ctx(t), "all", "mail")
	must(t, "AssignServer to an every-server agent", err)
	if a.Servers != nil || a.Version != 1 {
		t.Errorf("AssignServer to an every-server agent: servers %#v version %d, want nil and 1", a.Servers, a.Version)
	}
	_, err = s.RemoveServer(ctx(t), "all", "mail")
	wantErr(t, "RemoveServer from an every-server agent", err, store.ErrConflict)
	_, err = s.AssignServer(ctx(t), "ghost", "mail")
	wantErr(t, "AssignServer to a missing agent", err, store.ErrNotFound)
	_, err = s.AssignServer(ctx(t), "bob", "")
	wantErr(t, "AssignServer of an empty name", err, store.ErrInvalid)
}

// testConcurrentAssign checks that concurrent assignments are not lost.
func testConcurrentAssign(t *testing.T, s store.Store) {
	_, err := s.CreateAgent(ctx(t), store.Agent{Name: "bob", Servers: []string{}})
	must(t, "CreateAgent", err)
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			if _, err := s.AssignServer(ctx(t), "bob", fmt.Sprintf("s%d", i)); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent AssignServer: %v", err)
	}
	a, err := s.GetAgent(ctx(t), "bob")
	must(t, "GetAgent", err)
	if len(a.Servers) != n || a.Version != n+1 {
		t.Errorf("after %d concurrent assignments: servers %v version %d", n, a.Servers, a.Version)
	}
}
