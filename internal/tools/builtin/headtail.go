package builtin

import (
	"fmt"
	"unicode/utf8"
)

// headTail keeps the first and the last bytes written to it, up to a limit
// in all, and counts the rest. It is not safe for concurrent use: terminal
// writes from one goroutine and calls String after that goroutine ended.
type headTail struct {
	half  int
	head  []byte
	tail  []byte // the last bytes, up to 2*half before compaction
	total int64
}

func newHeadTail(limit int) *headTail { return &headTail{half: max(limit/2, 1)} }

func (h *headTail) Write(p []byte) (int, error) {
	n := len(p)
	h.total += int64(n)
	if room := h.half - len(h.head); room > 0 {
		k := min(room, len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	if len(p) >= h.half {
		h.tail = append(h.tail[:0], p[len(p)-h.half:]...)
		return n, nil
	}
	h.tail = append(h.tail, p...)
	if len(h.tail) > 2*h.half {
		h.tail = append(h.tail[:0], h.tail[len(h.tail)-h.half:]...)
	}
	return n, nil
}

// String returns the kept output, with a note where bytes were dropped.
func (h *headTail) String() string {
	tail := h.tail
	if len(tail) > h.half {
		tail = tail[len(tail)-h.half:]
	}
	dropped := h.total - int64(len(h.head)) - int64(len(tail))
	if dropped == 0 {
		return string(h.head) + string(tail)
	}
	head := trimPartialRune(h.head)
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:] // do not start inside a rune
	}
	dropped = h.total - int64(len(head)) - int64(len(tail))
	return fmt.Sprintf("%s\n[... %d bytes of output omitted ...]\n%s", head, dropped, tail)
}
