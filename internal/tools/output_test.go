package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeInPieces writes s to t in pieces of n bytes, as a stream decoder does.
func writeInPieces(t *OutputText, s string, n int) {
	for len(s) > 0 {
		k := min(n, len(s))
		t.Write([]byte(s[:k]))
		s = s[k:]
	}
}

func TestOutputTextWithinLimitStaysInMemory(t *testing.T) {
	dir := t.TempDir()
	ot := NewOutputStore(dir, 100, nil).NewText("tool")
	writeInPieces(ot, strings.Repeat("x", 100), 7)
	text, st := ot.Finish()
	if st != nil || text != strings.Repeat("x", 100) {
		t.Fatalf("Finish = %q, %+v; want the whole text and no stored output", text, st)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a text within the limit left files: %v", ents)
	}
}

func TestOutputTextSpillsToAFile(t *testing.T) {
	dir := t.TempDir()
	full := strings.Repeat("0123456789", 1000) + "é" // 10,002 bytes, ends in a 2-byte rune
	for _, piece := range []int{1, 3, 64, 100_000} {
		ot := NewOutputStore(dir, 100, nil).NewText("tool")
		writeInPieces(ot, full, piece)
		text, st := ot.Finish()
		if text != "" || st == nil {
			t.Fatalf("piece %d: Finish = %q, %+v; want a stored output", piece, text, st)
		}
		want := &StoredOutput{ID: st.ID, Size: int64(len(full)), Head: full[:50], Tail: full[len(full)-50:]}
		if diff := cmp.Diff(want, st); diff != "" {
			t.Errorf("piece %d: stored output mismatch (-want +got):\n%s", piece, diff)
		}
		b, err := os.ReadFile(filepath.Join(dir, st.ID+".txt"))
		if err != nil || string(b) != full {
			t.Errorf("piece %d: stored file has %d bytes (%v), want the full %d", piece, len(b), err, len(full))
		}
	}
}

func TestOutputTextCutsOnRuneBoundaries(t *testing.T) {
	full := strings.Repeat("é", 200) // 400 bytes of 2-byte runes
	ot := NewOutputStore("", 101, nil).NewText("tool")
	writeInPieces(ot, full, 5)
	_, st := ot.Finish()
	if st == nil || st.ID != "" {
		t.Fatalf("stored = %+v, want one with no ID (no directory)", st)
	}
	if !strings.HasPrefix(full, st.Head) || !strings.HasSuffix(full, st.Tail) || len(st.Head) != 50 || len(st.Tail) != 50 {
		t.Errorf("head %q (%d bytes), tail %q (%d bytes): want whole runes, 50 bytes each", st.Head, len(st.Head), st.Tail, len(st.Tail))
	}
}

func TestOutputTextDiscardRemovesTheFile(t *testing.T) {
	dir := t.TempDir()
	ot := NewOutputStore(dir, 10, nil).NewText("tool")
	ot.Write([]byte(strings.Repeat("z", 100)))
	ot.Discard()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("Discard left files: %v", ents)
	}
}

func TestOutputTextUnwritableDirKeepsHeadAndTail(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ot := NewOutputStore(filepath.Join(file, "sub"), 10, nil).NewText("tool")
	ot.Write([]byte("abcdefghijklmnopqrstuvwxyz"))
	_, st := ot.Finish()
	want := &StoredOutput{Size: 26, Head: "abcde", Tail: "vwxyz"}
	if diff := cmp.Diff(want, st); diff != "" {
		t.Errorf("stored output mismatch (-want +got):\n%s", diff)
	}
}

// TestBoundShowsStoredOutputs checks that the registry shows a text a tool
// streamed into the store exactly as it shows a text it cut itself.
func TestBoundShowsStoredOutputs(t *testing.T) {
	dir := t.TempDir()
	full := strings.Repeat("0123456789", 100)
	r := NewRegistry(&RegistryOptions{ResultLimit: 100, OutputDir: dir})
	f := newFake("big", "")
	f.Run = func(_ context.Context, req *CallRequest) (*Result, error) {
		text := req.Output.NewText("big")
		text.Write([]byte(full))
		_, st := text.Finish()
		structured := req.Output.NewText("big")
		structured.Write([]byte(`{"content":"` + full + `"}`))
		_, sst := structured.Finish()
		res := &Result{Content: []Content{
			{Type: ContentText, Stored: st},
			{Type: ContentResource, URI: "file:///x", Stored: st},
			{Type: ContentText, Text: "small"},
		}, StoredStructured: sst}
		return res, nil
	}
	r.Set(Source{Kind: KindBuiltin}, []Tool{f})
	got, err := r.Call(context.Background(), "big", nil)
	if err != nil {
		t.Fatal(err)
	}
	// The same tool result cut by the registry itself, for comparison.
	plain := NewRegistry(&RegistryOptions{ResultLimit: 100, OutputDir: dir})
	g := newFake("big", "")
	g.Run = func(context.Context, *CallRequest) (*Result, error) { return TextResult(full), nil }
	plain.Set(Source{Kind: KindBuiltin}, []Tool{g})
	ref, err := plain.Call(context.Background(), "big", nil)
	if err != nil {
		t.Fatal(err)
	}
	id := idRE.FindString(got.Content[0].Text)
	refText := strings.ReplaceAll(ref.Content[0].Text, idRE.FindString(ref.Content[0].Text), id)
	if diff := cmp.Diff(refText, got.Content[0].Text); diff != "" {
		t.Errorf("stored text shown differently from a cut text (-cut +stored):\n%s", diff)
	}
	if len(got.Content) != 6 {
		t.Fatalf("content = %+v; want text, resource head, note, resource tail, small text, structured note", got.Content)
	}
	if c := got.Content[1]; c.Type != ContentResource || c.Text != full[:50] || c.URI != "file:///x" {
		t.Errorf("resource head = %+v", c)
	}
	if c := got.Content[3]; c.Type != ContentResource || c.Text != full[950:] {
		t.Errorf("resource tail = %+v", c)
	}
	if c := got.Content[4]; c.Text != "small" {
		t.Errorf("small text = %+v", c)
	}
	if c := got.Content[5]; !strings.Contains(c.Text, "structured content of 1014 bytes dropped") || idRE.FindString(c.Text) == "" {
		t.Errorf("structured note = %q", c.Text)
	}
	if got.Structured != nil || got.StoredStructured != nil {
		t.Errorf("structured content still set: %+v", got)
	}
	for _, c := range got.Content {
		if c.Stored != nil {
			t.Errorf("a stored block reached the caller: %+v", c)
		}
	}
}

// TestOutputsFiledByUser: the registry files what a call keeps under the
// user the call acts for ([WithUser]), each user in a directory of its own
// whose name no ID can steer outside the output directory.
func TestOutputsFiledByUser(t *testing.T) {
	dir := t.TempDir()
	r := NewRegistry(&RegistryOptions{ResultLimit: 10, OutputDir: dir})
	f := newFake("big", "")
	f.Run = func(context.Context, *CallRequest) (*Result, error) { return TextResult(strings.Repeat("x", 100)), nil }
	r.Set(Source{Kind: KindBuiltin}, []Tool{f})
	for _, user := range []string{"", "u-alice", "u-bob", "../../etc", "local"} {
		res, err := r.Call(WithUser(t.Context(), user), "big", nil)
		if err != nil {
			t.Fatal(err)
		}
		id := idRE.FindString(res.Text())
		want := UserOutputDir(dir, user)
		if _, err := os.Stat(filepath.Join(want, id+".txt")); err != nil {
			t.Errorf("user %q: output %s not in %s: %v", user, id, want, err)
		}
		if rel, err := filepath.Rel(dir, want); err != nil || strings.Contains(rel, "..") || strings.ContainsRune(rel, filepath.Separator) {
			t.Errorf("user %q: directory %s is not one level inside %s", user, want, dir)
		}
	}
	if UserOutputDir(dir, "local") == UserOutputDir(dir, "") {
		t.Error("a stored user whose ID is \"local\" shares the local user's directory")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 5 {
		t.Errorf("%d user directories, want 5", len(ents))
	}
}
