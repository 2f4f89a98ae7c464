package chat

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// What the chat prints comes from models, tools and servers, none of which
// may drive the terminal: a tool result (and the model repeating it) can
// carry escape sequences that write the clipboard (OSC 52), erase or
// rewrite lines (CSI 2K, a bare carriage return), retitle the window or,
// on some terminals, do worse. Every text from them is passed through
// visible before it is printed, so that such characters show as escapes
// (ESC as \x1b) instead of acting; newlines and tabs stay, and the chat's
// own styling is added afterwards, to text that holds no control
// characters.

// visible returns s with every character a terminal would act on shown as
// an escape: C0 controls other than newline and tab, DEL, the C1 controls
// (U+0080–U+009F; a terminal may read U+009B as CSI) as \xNN or \uNNNN,
// and bytes that are not UTF-8 (which an 8-bit terminal may read as C1) as
// \xNN. A carriage return before a newline is dropped ("\r\n" is a line
// end); any other shows as \r.
func visible(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// clean reports whether s holds nothing visible would change: the common
// case, checked without allocating.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			return false
		}
		if c >= 0x80 {
			// Multi-byte: valid UTF-8 without C1 controls (encoded as
			// 0xC2 0x80–0x9F) is clean.
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n <= 1 || r <= 0x9f {
				return false
			}
			i += n - 1
		}
	}
	return true
}

// visibleStream is visible for a text that arrives in pieces (a streamed
// answer): a character split between two pieces is held back until its
// end arrives, so that the two halves of an encoded C1 control cannot pass
// as two harmless bytes and meet again on the terminal. It is not safe for
// concurrent use.
type visibleStream struct {
	carry string // an incomplete UTF-8 sequence that ended the last piece
}

// next returns the printable form of the text so far that ends piece.
func (v *visibleStream) next(piece string) string {
	s := v.carry + piece
	v.carry = ""
	// Hold back a carriage return that may begin a line end, and a
	// trailing incomplete (but so far valid) sequence.
	if strings.HasSuffix(s, "\r") {
		v.carry, s = "\r", s[:len(s)-1]
		return visible(s)
	}
	for k := 1; k < utf8.UTFMax && k <= len(s); k++ {
		if utf8.RuneStart(s[len(s)-k]) {
			if !utf8.FullRuneInString(s[len(s)-k:]) {
				v.carry, s = s[len(s)-k:], s[:len(s)-k]
			}
			break
		}
	}
	return visible(s)
}

// flush returns what is held back, shown as the bytes it is: the text
// ended inside a character.
func (v *visibleStream) flush() string {
	s := visible(v.carry)
	v.carry = ""
	return s
}
