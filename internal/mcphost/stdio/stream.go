package stdio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// jstream reads one JSON message from a lineReader as a stream, in bounded
// memory: strings are decoded piece by piece into a writer of the caller's
// choice (a tool output file for a long text), and the scans for quotes,
// backslashes and newlines use bytes.IndexByte, so a long string costs
// about a memmove per buffer, not work per byte. It is used for a message
// longer than the line buffer; shorter ones are decoded whole.
//
// Past the cap (limit) it goes on reading the message to its end without
// keeping anything, so that the id, which the TypeScript SDK writes last,
// is still read; streamResult then fails with errTooLarge.
type jstream struct {
	lr    *lineReader
	limit int64 // hard cap on the message's length
	over  bool  // the message is longer than limit: drop what is read

	scratch [utf8.UTFMax]byte // an unescaped rune, without an allocation per escape
}

// check notes when the message passes the cap: from then on nothing read
// is kept, and it is not recorded either.
func (s *jstream) check() {
	if !s.over && s.lr.consumed > s.limit {
		s.over = true
		s.lr.record = nil
	}
}

// keep wraps a writer so that it receives nothing once the message is over
// the cap.
func (s *jstream) keep(w io.Writer) io.Writer { return &capWriter{s: s, w: w} }

type capWriter struct {
	s *jstream
	w io.Writer
}

func (c *capWriter) Write(p []byte) (int, error) {
	if c.s.over {
		return len(p), nil
	}
	return c.w.Write(p)
}

var (
	errEndOfMessage = errors.New("the message ended inside a JSON value")
	errSyntax       = errors.New("invalid JSON")
)

// win returns the buffered bytes of the message, reading more when none
// are buffered; it fails at the end of the message and past the cap.
func (s *jstream) win() ([]byte, error) {
	s.check()
	w, _ := s.lr.lineWindow()
	if len(w) == 0 {
		return nil, errEndOfMessage
	}
	return w, nil
}

// peek returns the next byte that is not white space, without consuming it.
func (s *jstream) peek() (byte, error) {
	for {
		w, err := s.win()
		if err != nil {
			return 0, err
		}
		i := 0
		for i < len(w) && (w[i] == ' ' || w[i] == '\t' || w[i] == '\r') {
			i++
		}
		s.lr.advance(i)
		if i < len(w) {
			return w[i], nil
		}
	}
}

func (s *jstream) expect(c byte) error {
	b, err := s.peek()
	if err != nil {
		return err
	}
	if b != c {
		return fmt.Errorf("%w: found %q where %q belongs", errSyntax, b, c)
	}
	s.lr.advance(1)
	return nil
}

// object reads an object, calling field for each key; field must consume
// the key's value.
func (s *jstream) object(field func(key string) error) error {
	var key bytes.Buffer
	return s.sequence('{', '}', "an object member", func() error {
		key.Reset()
		if err := s.strAlways(&capped{b: &key, max: maxSmallString}); err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		return field(key.String())
	})
}

// array reads an array, calling elem for each element; elem must consume it.
func (s *jstream) array(elem func() error) error {
	return s.sequence('[', ']', "an array element", elem)
}

// sequence reads the items of an object or array between open and end,
// separated by commas; item consumes one.
func (s *jstream) sequence(open, end byte, what string, item func() error) error {
	if err := s.expect(open); err != nil {
		return err
	}
	if b, err := s.peek(); err != nil || b == end {
		if err == nil {
			s.lr.advance(1)
		}
		return err
	}
	for {
		if err := item(); err != nil {
			return err
		}
		b, err := s.peek()
		if err != nil {
			return err
		}
		s.lr.advance(1)
		switch b {
		case ',':
		case end:
			return nil
		default:
			return fmt.Errorf("%w: found %q after %s", errSyntax, b, what)
		}
	}
}

// maxSmallString bounds keys and short fields (type, mimeType, uri, name).
const maxSmallString = 1 << 20

// smallString reads a string of at most maxSmallString bytes.
func (s *jstream) smallString() (string, error) {
	var b bytes.Buffer
	err := s.str(&capped{b: &b, max: maxSmallString})
	return b.String(), err
}

// str reads a string and writes its decoded bytes to w; nothing once the
// message is over the cap.
func (s *jstream) str(w io.Writer) error { return s.strAlways(s.keep(w)) }

// strAlways reads a string into w even past the cap: for object keys.
func (s *jstream) strAlways(w io.Writer) error {
	if err := s.expect('"'); err != nil {
		return err
	}
	for {
		s.check()
		win, end := s.lr.lineWindow()
		if len(win) == 0 {
			return errEndOfMessage
		}
		j := 0
		q := -1 // index in win of the next quote, once searched for
		for {
			if q < j {
				if q = bytes.IndexByte(win[j:], '"'); q < 0 {
					q = len(win)
				} else {
					q += j
				}
			}
			bs := bytes.IndexByte(win[j:q], '\\')
			if bs < 0 {
				if _, err := w.Write(win[j:q]); err != nil {
					return err
				}
				if q < len(win) {
					s.lr.advance(q + 1)
					return nil
				}
				s.lr.advance(len(win))
				break
			}
			bs += j
			if _, err := w.Write(win[j:bs]); err != nil {
				return err
			}
			n, ok := unescape(win[bs:], w, end, &s.scratch)
			if !ok {
				if bs == 0 && end {
					return errEndOfMessage
				}
				// The escape runs past what is buffered: start the next
				// window with it, holding at least a surrogate pair's 12 bytes.
				s.lr.advance(bs)
				s.lr.ensure(12)
				break
			}
			if n < 0 {
				return fmt.Errorf("%w: bad escape in a string", errSyntax)
			}
			j = bs + n
		}
	}
}

// unescape decodes the escape at the start of b (a backslash) into w and
// returns how many bytes it took. ok is false when b ends before the escape
// does and more may follow (final false); n is -1 for an invalid escape.
// Unpaired surrogates become U+FFFD, as encoding/json does.
func unescape(b []byte, w io.Writer, final bool, scratch *[utf8.UTFMax]byte) (n int, ok bool) {
	if len(b) < 2 {
		if final {
			return -1, true
		}
		return 0, false
	}
	one := scratch[:1]
	switch b[1] {
	case '"', '\\', '/':
		one[0] = b[1]
	case 'b':
		one[0] = '\b'
	case 'f':
		one[0] = '\f'
	case 'n':
		one[0] = '\n'
	case 'r':
		one[0] = '\r'
	case 't':
		one[0] = '\t'
	case 'u':
		if len(b) < 6 {
			if final {
				return -1, true
			}
			return 0, false
		}
		r, ok := hex4(b[2:])
		if !ok {
			return -1, true
		}
		n := 6
		if utf16.IsSurrogate(r) {
			if len(b) < 12 && !final {
				return 0, false
			}
			r2, ok2 := rune(0), false
			if len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
				r2, ok2 = hex4(b[8:])
			}
			if d := utf16.DecodeRune(r, r2); ok2 && d != utf8.RuneError {
				r, n = d, 12
			} else {
				r = utf8.RuneError
			}
		}
		k := utf8.EncodeRune(scratch[:], r)
		_, _ = w.Write(scratch[:k])
		return n, true
	default:
		return -1, true
	}
	_, _ = w.Write(one)
	return 2, true
}

// hex4 decodes four hex digits; false when b is short or not hex.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// raw copies the next value, as it is on the wire, to w; nothing once the
// message is over the cap.
func (s *jstream) raw(w io.Writer) error { return s.rawAlways(s.keep(w)) }

// rawAlways copies the next value to w even past the cap: for the few bytes
// of an id.
func (s *jstream) rawAlways(w io.Writer) error {
	b, err := s.peek()
	if err != nil {
		return err
	}
	switch b {
	case '"':
		return s.rawString(w)
	case '{', '[':
		return s.rawComposite(w)
	default:
		lit, err := s.literal()
		if err != nil {
			return err
		}
		_, err = w.Write(lit)
		return err
	}
}

// skip consumes the next value.
func (s *jstream) skip() error { return s.raw(io.Discard) }

// rawString copies a string with its quotes and escapes, finding its end
// by the parity of the backslashes before each quote.
func (s *jstream) rawString(w io.Writer) error {
	if err := s.expect('"'); err != nil {
		return err
	}
	if _, err := w.Write([]byte{'"'}); err != nil {
		return err
	}
	carried := 0 // backslashes that ended the previous window
	for {
		win, err := s.win()
		if err != nil {
			return err
		}
		j := 0
		for {
			q := bytes.IndexByte(win[j:], '"')
			if q < 0 {
				if _, err := w.Write(win); err != nil {
					return err
				}
				carried = trailing(win, carried)
				s.lr.advance(len(win))
				break
			}
			q += j
			if trailing(win[:q], carried)%2 == 0 {
				if _, err := w.Write(win[:q+1]); err != nil {
					return err
				}
				s.lr.advance(q + 1)
				return nil
			}
			j = q + 1
		}
	}
}

// trailing counts the backslashes that end b, plus carried when all of b is
// backslashes.
func trailing(b []byte, carried int) int {
	n := 0
	for i := len(b) - 1; i >= 0 && b[i] == '\\'; i-- {
		n++
	}
	if n == len(b) {
		n += carried
	}
	return n
}

// rawComposite copies an object or array.
func (s *jstream) rawComposite(w io.Writer) error {
	depth := 0
	for {
		win, err := s.win()
		if err != nil {
			return err
		}
		j := 0
	scan:
		for ; j < len(win); j++ {
			switch win[j] {
			case '"':
				if _, err := w.Write(win[:j]); err != nil {
					return err
				}
				s.lr.advance(j)
				if err := s.rawString(w); err != nil {
					return err
				}
				j = -1
				break scan
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					if _, err := w.Write(win[:j+1]); err != nil {
						return err
					}
					s.lr.advance(j + 1)
					return nil
				}
			}
		}
		if j >= 0 {
			if _, err := w.Write(win); err != nil {
				return err
			}
			s.lr.advance(len(win))
		}
	}
}

// literal reads a number, true, false or null.
func (s *jstream) literal() ([]byte, error) {
	var out []byte
	for {
		w, end := s.lr.lineWindow()
		i := 0
		for i < len(w) && !isDelim(w[i]) {
			i++
		}
		if len(out)+i > 1024 {
			return nil, fmt.Errorf("%w: a literal longer than 1 KiB", errSyntax)
		}
		out = append(out, w[:i]...)
		s.lr.advance(i)
		if i < len(w) || end {
			if len(out) == 0 {
				return nil, fmt.Errorf("%w: a value is missing", errSyntax)
			}
			return out, nil
		}
	}
}

// finish checks that only white space follows the message on its line and
// then consumes the line. After an error (here or before) the caller skips
// the rest of the line.
func (s *jstream) finish() error {
	for {
		w, end := s.lr.lineWindow()
		if len(bytes.TrimRight(w, " \t\r")) > 0 {
			return fmt.Errorf("%w: data after the message", errSyntax)
		}
		s.lr.advance(len(w))
		if end {
			s.lr.skipLine()
			return nil
		}
	}
}

// capped is a writer into b that fails past max bytes.
type capped struct {
	b   *bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if c.b.Len()+len(p) > c.max {
		return 0, errFieldTooLong
	}
	return c.b.Write(p)
}

var errFieldTooLong = errors.New("a field of the message is too long")
