package storetest

import (
	"bytes"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

func testConfigEntries(t *testing.T, s store.Store) {
	// Sealed bytes include a NUL and bytes that are not UTF-8: the store
	// must keep them exactly.
	sealed := []byte{0, 0xff, 0xfe, 'x', 0}
	files := store.ConfigEntry{Kind: store.EntryServer, Name: "files", Body: []byte(`{"command":"mcp-files","env":{"TOKEN":"(set)"}}`), Sealed: sealed, UpdatedBy: "ada"}
	got, err := s.CreateConfigEntry(ctx(t), files)
	must(t, "CreateConfigEntry", err)
	if got.Version != 1 || got.CreatedAt.IsZero() || !got.UpdatedAt.Equal(got.CreatedAt) {
		t.Errorf("CreateConfigEntry returned version %d, created %v, updated %v", got.Version, got.CreatedAt, got.UpdatedAt)
	}
	_, err = s.CreateConfigEntry(ctx(t), files)
	wantErr(t, "CreateConfigEntry with a taken name", err, store.ErrConflict)
	// The same name in another kind is another entry.
	api := store.ConfigEntry{Kind: store.EntryOpenAPI, Name: "files", Body: []byte(`{"url":"http://127.0.0.1:1"}`), Sealed: []byte("s"), UpdatedBy: "ada"}
	_, err = s.CreateConfigEntry(ctx(t), api)
	must(t, "CreateConfigEntry of another kind", err)

	for _, bad := range []store.ConfigEntry{
		{Kind: "agent", Name: "x", Body: []byte(`{}`), Sealed: []byte("s")},
		{Kind: store.EntryServer, Body: []byte(`{}`), Sealed: []byte("s")},
		{Kind: store.EntryServer, Name: "x", Body: []byte(`{`), Sealed: []byte("s")},
		{Kind: store.EntryServer, Name: "x", Body: []byte(`{}`)},
	} {
		_, err := s.CreateConfigEntry(ctx(t), bad)
		wantErr(t, "CreateConfigEntry of "+string(bad.Body)+" "+bad.Kind+"/"+bad.Name, err, store.ErrInvalid)
	}

	back, err := s.GetConfigEntry(ctx(t), store.EntryServer, "files")
	must(t, "GetConfigEntry", err)
	diff(t, "GetConfigEntry", got, back)
	if !bytes.Equal(back.Sealed, sealed) {
		t.Errorf("sealed form came back as %x, want %x", back.Sealed, sealed)
	}
	_, err = s.GetConfigEntry(ctx(t), store.EntryServer, "ghost")
	wantErr(t, "GetConfigEntry of a missing entry", err, store.ErrNotFound)

	upd := back
	upd.Body = []byte(`{"command":"mcp-files","disabled":true}`)
	upd.Sealed = []byte("new")
	upd.UpdatedBy = "bob"
	v2, err := s.UpdateConfigEntry(ctx(t), upd)
	must(t, "UpdateConfigEntry", err)
	if v2.Version != 2 || v2.UpdatedBy != "bob" || string(v2.Sealed) != "new" || !v2.CreatedAt.Equal(got.CreatedAt) || v2.UpdatedAt.Before(got.UpdatedAt) {
		t.Errorf("UpdateConfigEntry returned %+v", v2)
	}
	_, err = s.UpdateConfigEntry(ctx(t), back) // still at version 1
	wantErr(t, "UpdateConfigEntry at a stale version", err, store.ErrConflict)
	ghost := upd
	ghost.Name = "ghost"
	_, err = s.UpdateConfigEntry(ctx(t), ghost)
	wantErr(t, "UpdateConfigEntry of a missing entry", err, store.ErrNotFound)

	list, err := s.ListConfigEntries(ctx(t))
	must(t, "ListConfigEntries", err)
	if len(list) != 2 || list[0].Kind != store.EntryOpenAPI || list[1].Kind != store.EntryServer || list[1].Version != 2 {
		t.Errorf("ListConfigEntries = %+v, want the openapi entry, then the server at version 2", list)
	}

	must(t, "DeleteConfigEntry", s.DeleteConfigEntry(ctx(t), store.EntryServer, "files"))
	wantErr(t, "DeleteConfigEntry twice", s.DeleteConfigEntry(ctx(t), store.EntryServer, "files"), store.ErrNotFound)
	_, err = s.GetConfigEntry(ctx(t), store.EntryOpenAPI, "files")
	must(t, "GetConfigEntry of the other kind after the delete", err)
}

// testConcurrentConfigUpdate checks that of several writers updating one
// entry at the same version exactly one wins.
func testConcurrentConfigUpdate(t *testing.T, s store.Store) {
	e, err := s.CreateConfigEntry(ctx(t), store.ConfigEntry{Kind: store.EntryServer, Name: "race", Body: []byte(`{}`), Sealed: []byte("s")})
	must(t, "CreateConfigEntry", err)
	var (
		wg   sync.WaitGroup
		wins atomic.Int32
	)
	for i := range 8 {
		wg.Go(func() {
			u := e
			u.UpdatedBy = string(rune('a' + i))
			if _, err := s.UpdateConfigEntry(ctx(t), u); err == nil {
				wins.Add(1)
			} else {
				wantErr(t, "losing UpdateConfigEntry", err, store.ErrConflict)
			}
		})
	}
	wg.Wait()
	if n := wins.Load(); n != 1 {
		t.Errorf("%d concurrent updates at one version won, want 1", n)
	}
}
