package textcall

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// The repairer is a small recursive-descent reader for the JSON that small
// models write. It accepts strict JSON plus the slips whose meaning is not in
// doubt, and writes strict, compact JSON:
//
//   - trailing commas in objects and arrays;
//   - single-quoted strings and keys;
//   - unquoted keys (an identifier directly followed by a colon);
//   - Python literals True, False and None;
//   - raw control characters inside strings (escaped), \' and unknown
//     escapes (kept as a literal backslash);
//   - at the real end of the message only: missing closing braces and
//     brackets, when the text stops where a closer may stand.
//
// Everything else is an error. Unquoted string values, for example, are
// refused: "{a: b c}" has no single reading.

// maxDepth bounds nesting so hostile input cannot grow the stack without
// limit.
const maxDepth = 200

// errIncomplete means the input ended inside a value: more text could still
// complete it.
var errIncomplete = errors.New("incomplete")

// syntaxError says what was wrong and where.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("%s at offset %d", e.msg, e.off) }

type repairer struct {
	src string
	pos int
	out []byte
	// final means src ends where the message ends: tokens touching the end
	// are complete, and missing closers may be supplied.
	final    bool
	depth    int
	repaired bool
}

// repairValue reads one JSON value at the start of src (after optional
// whitespace). It returns the strict JSON, the number of bytes of src it
// consumed, and whether a repair was needed. The error is errIncomplete when
// src ends inside the value and final is false, or a *syntaxError.
func repairValue(src string, final bool) (out []byte, n int, repaired bool, err error) {
	r := &repairer{src: src, final: final, out: make([]byte, 0, min(len(src), 512))}
	r.skipSpace()
	if err := r.value(); err != nil {
		return nil, r.pos, false, err
	}
	return r.out, r.pos, r.repaired, nil
}

func (r *repairer) fail(msg string) error { return &syntaxError{off: r.pos, msg: msg} }

// atEnd reports whether the input is exhausted, and with it the error to
// return when a token was still expected.
func (r *repairer) atEnd() bool { return r.pos >= len(r.src) }

func (r *repairer) endErr(what string) error {
	if r.final {
		return &syntaxError{off: r.pos, msg: "unexpected end of text in " + what}
	}
	return errIncomplete
}

func (r *repairer) skipSpace() {
	for r.pos < len(r.src) {
		switch r.src[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

func (r *repairer) value() error {
	if r.atEnd() {
		return r.endErr("value")
	}
	switch c := r.src[r.pos]; {
	case c == '{':
		return r.container('{', '}')
	case c == '[':
		return r.container('[', ']')
	case c == '"' || c == '\'':
		return r.str()
	case c == '-' || c >= '0' && c <= '9':
		return r.number()
	case isIdentStart(c):
		return r.literal()
	default:
		return r.fail(fmt.Sprintf("unexpected character %q", c))
	}
}

// container reads an object or an array; objects read key: value members.
func (r *repairer) container(open, closer byte) error {
	r.depth++
	if r.depth > maxDepth {
		return r.fail("nesting too deep")
	}
	defer func() { r.depth-- }()
	r.pos++ // the opener
	r.out = append(r.out, open)
	first := true
	for {
		r.skipSpace()
		if r.atEnd() {
			if r.final {
				// The text stops where a closer may stand: supply it.
				r.out = append(r.out, closer)
				r.repaired = true
				return nil
			}
			return errIncomplete
		}
		c := r.src[r.pos]
		if c == closer {
			r.pos++
			r.out = append(r.out, closer)
			return nil
		}
		if !first {
			if c != ',' {
				return r.fail(fmt.Sprintf("expected ',' or %q, found %q", closer, c))
			}
			r.pos++
			r.skipSpace()
			if r.atEnd() {
				continue // handled at the top: incomplete or a supplied closer
			}
			if r.src[r.pos] == closer {
				r.repaired = true // trailing comma
				continue
			}
			r.out = append(r.out, ',')
		}
		first = false
		if open == '{' {
			if err := r.key(); err != nil {
				return err
			}
			r.skipSpace()
			if r.atEnd() {
				return r.endErr("object")
			}
			if r.src[r.pos] != ':' {
				return r.fail(fmt.Sprintf("expected ':' after object key, found %q", r.src[r.pos]))
			}
			r.pos++
			r.out = append(r.out, ':')
			r.skipSpace()
		}
		if err := r.value(); err != nil {
			return err
		}
	}
}

func (r *repairer) key() error {
	c := r.src[r.pos]
	if c == '"' || c == '\'' {
		return r.str()
	}
	if !isIdentStart(c) {
		return r.fail(fmt.Sprintf("expected object key, found %q", c))
	}
	start := r.pos
	for r.pos < len(r.src) && isIdentPart(r.src[r.pos]) {
		r.pos++
	}
	if r.atEnd() && !r.final {
		return errIncomplete
	}
	// Only an identifier directly followed by a colon is a key: anything
	// else would be a guess.
	end := r.pos
	r.skipSpace()
	if r.atEnd() {
		return r.endErr("object key")
	}
	if r.src[r.pos] != ':' {
		return r.fail("unquoted key must be followed by ':'")
	}
	r.out = appendQuoted(r.out, r.src[start:end])
	r.repaired = true
	return nil
}

// str reads a double- or single-quoted string and writes it double-quoted.
func (r *repairer) str() error {
	q := r.src[r.pos]
	if q == '\'' {
		r.repaired = true
	}
	r.pos++
	r.out = append(r.out, '"')
	for {
		if r.atEnd() {
			// An unterminated string has no single reading, even at the end.
			if r.final {
				return r.fail("unterminated string")
			}
			return errIncomplete
		}
		c := r.src[r.pos]
		switch {
		case c == q:
			r.pos++
			r.out = append(r.out, '"')
			return nil
		case c == '\\':
			if err := r.escape(); err != nil {
				return err
			}
		case c == '"': // only reached inside a single-quoted string
			r.pos++
			r.out = append(r.out, '\\', '"')
		case c < 0x20:
			r.pos++
			r.out = appendControl(r.out, c)
			r.repaired = true
		case c < utf8.RuneSelf:
			r.pos++
			r.out = append(r.out, c)
		default:
			ru, size := utf8.DecodeRuneInString(r.src[r.pos:])
			if ru == utf8.RuneError && size <= 1 {
				if !utf8.FullRuneInString(r.src[r.pos:]) && !r.final {
					return errIncomplete
				}
				r.out = append(r.out, `\ufffd`...)
				r.repaired = true
				r.pos++
				continue
			}
			r.out = append(r.out, r.src[r.pos:r.pos+size]...)
			r.pos += size
		}
	}
}

func (r *repairer) escape() error {
	if r.pos+1 >= len(r.src) {
		r.pos = len(r.src)
		if r.final {
			return r.fail("unterminated string")
		}
		return errIncomplete
	}
	e := r.src[r.pos+1]
	switch e {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		r.out = append(r.out, '\\', e)
		r.pos += 2
	case '\'':
		r.out = append(r.out, '\'')
		r.pos += 2
		r.repaired = true
	case 'u':
		if r.pos+6 > len(r.src) {
			if !r.final && allHex(r.src[r.pos+2:]) {
				r.pos = len(r.src)
				return errIncomplete
			}
		} else if allHex(r.src[r.pos+2 : r.pos+6]) {
			r.out = append(r.out, r.src[r.pos:r.pos+6]...)
			r.pos += 6
			return nil
		}
		// Not a \uXXXX escape: keep the backslash as a character.
		r.out = append(r.out, '\\', '\\')
		r.pos++
		r.repaired = true
	default:
		// An unknown escape such as \d is a backslash the model meant
		// literally (regular expressions, Windows paths).
		r.out = append(r.out, '\\', '\\')
		r.pos++
		r.repaired = true
	}
	return nil
}

func (r *repairer) number() error {
	start := r.pos
	for r.pos < len(r.src) && isNumberByte(r.src[r.pos]) {
		r.pos++
	}
	if r.atEnd() && !r.final {
		return errIncomplete
	}
	tok := r.src[start:r.pos]
	if !validNumber(tok) {
		r.pos = start
		return r.fail(fmt.Sprintf("invalid number %q", tok))
	}
	r.out = append(r.out, tok...)
	return nil
}

func (r *repairer) literal() error {
	start := r.pos
	for r.pos < len(r.src) && isIdentPart(r.src[r.pos]) {
		r.pos++
	}
	if r.atEnd() && !r.final {
		return errIncomplete
	}
	switch tok := r.src[start:r.pos]; tok {
	case "true", "false", "null":
		r.out = append(r.out, tok...)
	case "True":
		r.out, r.repaired = append(r.out, "true"...), true
	case "False":
		r.out, r.repaired = append(r.out, "false"...), true
	case "None":
		r.out, r.repaired = append(r.out, "null"...), true
	default:
		r.pos = start
		return r.fail(fmt.Sprintf("unexpected word %q", tok))
	}
	return nil
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' || c == '-' }

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// validNumber reports whether tok is a JSON number.
func validNumber(tok string) bool {
	i := 0
	if i < len(tok) && tok[i] == '-' {
		i++
	}
	switch {
	case i < len(tok) && tok[i] == '0':
		i++
	case i < len(tok) && tok[i] >= '1' && tok[i] <= '9':
		for i < len(tok) && tok[i] >= '0' && tok[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(tok) && tok[i] == '.' {
		i++
		d := i
		for i < len(tok) && tok[i] >= '0' && tok[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		i++
		if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
			i++
		}
		d := i
		for i < len(tok) && tok[i] >= '0' && tok[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	return i == len(tok)
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') && (c < 'A' || c > 'F') {
			return false
		}
	}
	return true
}

func appendControl(out []byte, c byte) []byte {
	switch c {
	case '\n':
		return append(out, '\\', 'n')
	case '\r':
		return append(out, '\\', 'r')
	case '\t':
		return append(out, '\\', 't')
	default:
		const hex = "0123456789abcdef"
		return append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
	}
}

// appendQuoted writes an identifier (which needs no escaping) as a string.
func appendQuoted(out []byte, s string) []byte {
	out = append(out, '"')
	out = append(out, s...)
	return append(out, '"')
}
