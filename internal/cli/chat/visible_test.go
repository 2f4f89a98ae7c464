package chat

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// Escape sequences a tool result can carry to attack the terminal that
// prints it.
const (
	osc52     = "\x1b]52;c;ZWNobyBwd25lZA==\x07" // write "echo pwned" to the clipboard
	eraseLine = "\x1b[2K\r"                      // erase the line and go back to its start
	c1CSI     = "\u009b2K"                       // the same erase with the 8-bit CSI
	title     = "\x1b]0;innocent\x1b\\"          // retitle the window (ST-terminated)
)

func TestVisible(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "hello, wörld\n\tindented", "hello, wörld\n\tindented"},
		{"osc 52", "a" + osc52 + "b", `a\x1b]52;c;ZWNobyBwd25lZA==\x07b`},
		{"erase line", "ok" + eraseLine + "fake", `ok\x1b[2K\rfake`},
		{"c1 csi", "x" + c1CSI, `x\u009b2K`},
		{"title", title, `\x1b]0;innocent\x1b\`},
		{"crlf is a line end", "a\r\nb", "a\nb"},
		{"nul and del", "a\x00b\x7f", `a\x00b\x7f`},
		{"not utf-8", "a\xffb\xc2", `a\xffb\xc2`},
		{"8-bit csi byte", "a\x9b2Kb", `a\x9b2Kb`},
	} {
		if got := visible(tc.in); got != tc.want {
			t.Errorf("%s: visible(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
		if got := oneLine(tc.in); strings.ContainsAny(got, "\x1b\x07\r\n\x00\x7f\u009b") {
			t.Errorf("%s: oneLine(%q) = %q still holds control characters", tc.name, tc.in, got)
		}
	}
}

// TestVisibleStreamSplitCharacter: a C1 control whose two bytes arrive in
// two pieces of a stream is still shown escaped, and a carriage return
// that ends one piece still pairs with the newline that starts the next.
func TestVisibleStreamSplitCharacter(t *testing.T) {
	var v visibleStream
	enc := []byte(c1CSI) // 0xC2 0x9B '2' 'K'
	got := v.next("a"+string(enc[:1])) + v.next(string(enc[1:])+"b\r") + v.next("\nc\xe2\x82") + v.flush()
	if want := `a\u009b2Kb` + "\nc" + `\xe2\x82`; got != want {
		t.Errorf("stream = %q, want %q", got, want)
	}
}

// TestRunOnceShowsControlCharacters: `chat -p` as an attacker's tool result
// would drive it. The model repeats the result (OSC 52 clipboard write,
// line erasing, an 8-bit CSI split between two deltas) and the tool line
// quotes it; neither stdout nor stderr carries a control character, and
// both show what was there, escaped.
func TestRunOnceShowsControlCharacters(t *testing.T) {
	enc := []byte(c1CSI)
	c := call("c1", "web__fetch", `{"url":"https://x.example"}`)
	fb := &fakeBackend{run: script(nil,
		toolStart(c),
		toolEnd(c, store.OutcomeToolError, "fetched"+osc52+eraseLine+"all good", 0),
		text("The page says "+osc52), text(eraseLine+"Done"+string(enc[:1])), text(string(enc[1:])+"."),
		done(),
	)}
	var out, errw bytes.Buffer
	if code := RunOnce(t.Context(), fb, "fetch it", &Options{ConversationID: "c", Stdout: &out, Stderr: &errw}); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errw.String())
	}
	for name, got := range map[string]string{"stdout": out.String(), "stderr": errw.String()} {
		if strings.ContainsAny(got, "\x1b\x07\r\u009b") || strings.Contains(got, "\xc2\x9b") {
			t.Errorf("%s reaches the terminal with control characters: %q", name, got)
		}
	}
	if diff := cmp.Diff(`The page says \x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2K\rDone\u009b2K.`+"\n", out.String()); diff != "" {
		t.Errorf("stdout mismatch (-want +got):\n%s", diff)
	}
	if !strings.Contains(errw.String(), `tool error: fetched\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2K\rall good`) {
		t.Errorf("stderr does not show the result escaped: %q", errw.String())
	}
}

// TestTUIShowsControlCharacters: the terminal UI shows a streamed answer
// and a tool's error with their escape sequences visible, and its own
// styling intact; the screen it draws holds none of the attacker's
// sequences.
func TestTUIShowsControlCharacters(t *testing.T) {
	h := newHarness(t, &fakeBackend{}, nil)
	h.typeLine("fetch it")
	c := call("c1", "web__fetch", `{"url":"https://x.example"}`)
	h.event(toolStart(c), "web__fetch")
	h.event(toolEnd(c, store.OutcomeToolError, "bad"+eraseLine+"ok", 0), `bad\x1b[2K\rok`)
	h.event(text("Result: "+osc52+title), `Result: \x1b]52;c;`)
	h.event(text(" and "+c1CSI+" **bold**"), `and \u009b2K`)
	raw := h.m.View().Content
	for _, seq := range []string{"\x1b]52", "\x1b[2K", "\u009b", "\x1b]0;", "\x07"} {
		if strings.Contains(raw, seq) {
			t.Errorf("the screen holds %q:\n%q", seq, raw)
		}
	}
	if v := h.view(); !strings.Contains(v, `\x1b]0;innocent\x1b\`) || strings.Contains(v, "**bold**") {
		t.Errorf("answer not shown escaped, or its markdown not rendered:\n%s", v)
	}
	close(h.feed)
}
