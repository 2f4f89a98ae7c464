package stdio

import (
	"bytes"
	"errors"
	"io"
)

// lineReader reads newline-delimited messages through one fixed buffer. A
// line that fits in the buffer is returned in place, with no copy; a longer
// one is left in the buffer for a streaming reader (stream.go) to consume
// piece by piece, so no line is ever held whole. It is not safe for
// concurrent use: the connection's reader goroutine owns it.
type lineReader struct {
	r          io.Reader
	buf        []byte
	start, end int   // unread bytes are buf[start:end]
	scanned    int   // buf[start:scanned] holds no newline
	err        error // sticky read error, returned once the buffer is drained
	consumed   int64 // bytes consumed since the current line began
	// record, when set, receives every byte consumed: a streamed message
	// that may turn out to be someone else's is kept whole this way.
	record *bytes.Buffer
}

func newLineReader(r io.Reader, buf []byte) *lineReader {
	return &lineReader{r: r, buf: buf}
}

// next returns the next line without its newline. When the line is longer
// than the buffer, it returns the buffered first part and full=false; the
// caller must then consume the rest of the line with the streaming methods
// (or skipLine) before calling next again. At the end of input a last line
// without a newline is returned as a line; then err is the read error
// (io.EOF at a clean end).
func (lr *lineReader) next() (line []byte, full bool, err error) {
	lr.consumed = 0
	for {
		if i := bytes.IndexByte(lr.buf[lr.scanned:lr.end], '\n'); i >= 0 {
			nl := lr.scanned + i
			line = lr.buf[lr.start:nl]
			lr.start, lr.scanned = nl+1, nl+1
			return line, true, nil
		}
		lr.scanned = lr.end
		if lr.err != nil {
			if lr.start < lr.end {
				line = lr.buf[lr.start:lr.end]
				lr.start, lr.scanned = lr.end, lr.end
				return line, true, nil
			}
			return nil, false, lr.err
		}
		if lr.start == 0 && lr.end == len(lr.buf) {
			return lr.buf[lr.start:lr.end], false, nil
		}
		lr.fill()
	}
}

// fill moves unread bytes to the front and reads more after them.
func (lr *lineReader) fill() {
	if lr.start > 0 {
		n := copy(lr.buf, lr.buf[lr.start:lr.end])
		lr.scanned -= lr.start
		lr.start, lr.end = 0, n
	}
	for lr.end < len(lr.buf) && lr.err == nil {
		n, err := lr.r.Read(lr.buf[lr.end:])
		lr.end += n
		if err != nil {
			lr.err = err
		}
		if n > 0 {
			return
		}
	}
}

// window returns the unread bytes of the current line's data, reading more
// when none are buffered; empty means the input ended.
func (lr *lineReader) window() []byte {
	if lr.start == lr.end && lr.err == nil {
		lr.fill()
	}
	return lr.buf[lr.start:lr.end]
}

// advance consumes n bytes of the window.
func (lr *lineReader) advance(n int) {
	if lr.record != nil {
		lr.record.Write(lr.buf[lr.start : lr.start+n])
	}
	lr.start += n
	lr.consumed += int64(n)
	if lr.scanned < lr.start {
		lr.scanned = lr.start
	}
}

// lineWindow returns the unread bytes of the current line that are
// buffered now, reading more when none are, up to but excluding its
// newline. end reports that the line ends after w (a newline or the end of
// input follows).
func (lr *lineReader) lineWindow() (w []byte, end bool) {
	if lr.start == lr.end && lr.err == nil {
		lr.fill()
	}
	if lr.scanned < lr.start {
		lr.scanned = lr.start
	}
	if i := bytes.IndexByte(lr.buf[lr.scanned:lr.end], '\n'); i >= 0 {
		lr.scanned += i // stays on the newline, so the next call finds it at once
		return lr.buf[lr.start:lr.scanned], true
	}
	lr.scanned = lr.end
	return lr.buf[lr.start:lr.end], lr.err != nil
}

// ensure reads until at least n bytes of the current line are buffered or
// the line ends, and returns the line's window.
func (lr *lineReader) ensure(n int) ([]byte, bool) {
	for {
		w, end := lr.lineWindow()
		if len(w) >= n || end {
			return w, end
		}
		lr.fill()
	}
}

// skipLine consumes the rest of the current line, including its newline,
// without keeping it.
func (lr *lineReader) skipLine() {
	for {
		w := lr.window()
		if len(w) == 0 {
			return
		}
		if i := bytes.IndexByte(w, '\n'); i >= 0 {
			lr.advance(i + 1)
			return
		}
		lr.advance(len(w))
	}
}

// readLine appends the rest of the current line (without its newline) to
// dst, up to limit bytes in all; past the limit it skips the rest of the
// line and returns errTooLarge.
func (lr *lineReader) readLine(dst []byte, limit int64) ([]byte, error) {
	for {
		w := lr.window()
		if len(w) == 0 {
			return dst, nil
		}
		i := bytes.IndexByte(w, '\n')
		chunk := w
		if i >= 0 {
			chunk = w[:i]
		}
		if int64(len(dst)+len(chunk)) > limit {
			lr.skipLine()
			return nil, errTooLarge
		}
		dst = append(dst, chunk...)
		if i >= 0 {
			lr.advance(i + 1)
			return dst, nil
		}
		lr.advance(len(w))
	}
}

// errTooLarge means a message from the server is longer than the hard cap.
var errTooLarge = errors.New("message exceeds the size limit")
