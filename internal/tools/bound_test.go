package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// callWith registers one tool returning res and calls it.
func callWith(t *testing.T, opts *RegistryOptions, res *Result) *Result {
	t.Helper()
	r := NewRegistry(opts)
	f := newFake("big", "")
	f.Run = func(context.Context, *CallRequest) (*Result, error) { return res, nil }
	r.Set(Source{Kind: KindBuiltin}, []Tool{f})
	got, err := r.Call(context.Background(), "big", nil)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

var idRE = regexp.MustCompile(`out_[0-9a-f-]{36}`)

func TestBoundCutsTextAndStoresIt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "outputs")
	full := strings.Repeat("0123456789", 100) // 1000 bytes
	img := Content{Type: ContentImage, Data: []byte{1, 2, 3}, MIMEType: "image/png"}
	in := &Result{Content: []Content{{Type: ContentText, Text: full}, img}}
	got := callWith(t, &RegistryOptions{ResultLimit: 100, OutputDir: dir}, in)

	if len(got.Content) != 2 || got.Content[1].Type != ContentImage {
		t.Fatalf("content = %+v, want the cut text then the image", got.Content)
	}
	if diff := cmp.Diff(img, got.Content[1]); diff != "" {
		t.Errorf("image changed (-want +got):\n%s", diff)
	}
	text := got.Content[0].Text
	id := idRE.FindString(text)
	if id == "" {
		t.Fatalf("no output ID in %q", text)
	}
	wantNote := `[... 900 bytes cut; the full output is stored as tool output ID ` + id +
		` — call read_tool_output with {"id": "` + id + `", "offset": 50, "limit": 1024} to read it in pages ...]`
	want := full[:50] + "\n\n" + wantNote + "\n\n" + full[950:]
	if diff := cmp.Diff(want, text); diff != "" {
		t.Errorf("cut text mismatch (-want +got):\n%s", diff)
	}
	path := filepath.Join(UserOutputDir(dir, ""), id+".txt") // the local user's
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != full {
		t.Errorf("stored output has %d bytes, want the full %d", len(b), len(full))
	}
	for p, mode := range map[string]os.FileMode{path: 0o600, dir: 0o700} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, err %v; want %v", p, fi.Mode().Perm(), err, mode)
		}
	}
	if in.Content[0].Text != full {
		t.Error("the tool's own result was modified")
	}
}

func TestBoundUTF8AndBlocks(t *testing.T) {
	tests := []struct {
		name    string
		content []Content
		limit   int
		want    []Content
	}{
		{
			name:    "under the limit is untouched",
			content: []Content{{Type: ContentText, Text: "short"}},
			limit:   10,
			want:    []Content{{Type: ContentText, Text: "short"}},
		},
		{
			name:    "cut on rune boundaries",
			content: []Content{{Type: ContentText, Text: "ééééé"}}, // 10 bytes
			limit:   5,
			want:    []Content{{Type: ContentText, Text: "é\n\n[... 6 bytes cut; the full output was not kept ...]\n\né"}},
		},
		{
			name: "middle blocks dropped, resource keeps its URI",
			content: []Content{
				{Type: ContentText, Text: "aaaa"},
				{Type: ContentText, Text: "bbbb"},
				{Type: ContentAudio, Data: []byte{9}},
				{Type: ContentResource, URI: "file:///x", Text: "cccc"},
			},
			limit: 6, // joined "aaaa\nbbbb\ncccc" is 14 bytes: keep 3 + 3
			want: []Content{
				{Type: ContentText, Text: "aaa\n\n[... 8 bytes cut; the full output was not kept ...]\n\n"},
				{Type: ContentAudio, Data: []byte{9}},
				{Type: ContentResource, URI: "file:///x", Text: "ccc"},
			},
		},
		{
			name: "resource spanning the cut is split around the note",
			content: []Content{
				{Type: ContentResource, URI: "file:///y", MIMEType: "text/plain", Text: "0123456789"},
				{Type: ContentResource, URI: "file:///bin", Data: []byte("binary is not text")},
			},
			limit: 4,
			want: []Content{
				{Type: ContentResource, URI: "file:///y", MIMEType: "text/plain", Text: "01"},
				{Type: ContentText, Text: "[... 6 bytes cut; the full output was not kept ...]"},
				{Type: ContentResource, URI: "file:///y", MIMEType: "text/plain", Text: "89"},
				{Type: ContentResource, URI: "file:///bin", Data: []byte("binary is not text")},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := callWith(t, &RegistryOptions{ResultLimit: tt.limit}, &Result{Content: tt.content})
			if diff := cmp.Diff(tt.want, got.Content); diff != "" {
				t.Errorf("content mismatch (-want +got):\n%s", diff)
			}
			for _, c := range got.Content {
				if !utf8.ValidString(c.Text) {
					t.Errorf("cut produced invalid UTF-8: %q", c.Text)
				}
			}
		})
	}
}

func TestBoundNoLimit(t *testing.T) {
	big := strings.Repeat("x", 100_000)
	got := callWith(t, &RegistryOptions{ResultLimit: -1}, TextResult(big))
	if got.Text() != big {
		t.Errorf("ResultLimit -1 cut the text to %d bytes", len(got.Text()))
	}
}

func TestBoundStructured(t *testing.T) {
	dir := t.TempDir()
	structured, _ := json.Marshal(map[string]string{"blob": strings.Repeat("z", 200)})
	got := callWith(t, &RegistryOptions{ResultLimit: 100, OutputDir: dir}, &Result{
		Content:    []Content{{Type: ContentText, Text: "summary"}},
		Structured: structured,
	})
	if got.Structured != nil {
		t.Errorf("structured content of %d bytes kept, want it dropped", len(got.Structured))
	}
	if len(got.Content) != 2 || got.Content[0].Text != "summary" {
		t.Fatalf("content = %+v, want the text and a note", got.Content)
	}
	id := idRE.FindString(got.Content[1].Text)
	b, err := os.ReadFile(filepath.Join(UserOutputDir(dir, ""), id+".txt"))
	if err != nil || string(b) != string(structured) {
		t.Errorf("stored structured content = %q, %v; want %s", b, err, structured)
	}

	small := callWith(t, nil, &Result{Structured: json.RawMessage(`{"a":1}`)})
	if string(small.Structured) != `{"a":1}` {
		t.Errorf("small structured content = %s, want it kept", small.Structured)
	}
}

func TestBoundUnwritableDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	got := callWith(t, &RegistryOptions{ResultLimit: 2, OutputDir: filepath.Join(file, "sub")}, TextResult("abcdef"))
	want := "a\n\n[... 4 bytes cut; the full output was not kept ...]\n\nf"
	if diff := cmp.Diff(want, got.Text()); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}
