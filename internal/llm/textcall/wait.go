package textcall

import (
	"bytes"
)

// waiter lets [StreamParser.Feed] tell cheaply whether new text may decide
// the block held at the start of its buffer, so a long block arriving in
// small pieces is scanned a bounded number of times, not once per piece.
// Skipping a scan never changes a result: whether a block is a call depends
// only on its text, so deciding it later decides it the same way.
type waiter struct {
	kind waitKind
	// from is where the search for the terminator resumes (tags and
	// fences), or how many bytes the tracker has read (objects).
	from int
	// scanned is the buffer length at the last full scan of an object.
	scanned int
	tr      depthTracker
	// marker is the closing marker a family block waits for.
	marker string
}

type waitKind int

const (
	waitAny    waitKind = iota // nothing known: scan on every piece
	waitTag                    // a closing </tool_...> tag
	waitFence                  // a closing ```
	waitObject                 // the end of a bare JSON object
	waitMarker                 // a family's closing marker
)

// maxCloseTag is the length of the longest closing tag.
const maxCloseTag = len("</tool_code>")

func waitForTag(bodyStart, have int) waiter {
	return waiter{kind: waitTag, from: max(bodyStart, have-(maxCloseTag-1))}
}

func waitForMarker(marker string, bodyStart, have int) waiter {
	return waiter{kind: waitMarker, marker: marker, from: max(bodyStart, have-(len(marker)-1))}
}

func waitForFence(bodyStart, have int) waiter {
	return waiter{kind: waitFence, from: max(bodyStart, have-2)}
}

func waitForObject(buf string) waiter {
	w := waiter{kind: waitObject, from: len(buf), scanned: len(buf)}
	w.tr.feed(buf)
	return w
}

// mayDecide reports whether buf, grown since the last scan, may now decide
// the held block, and records how far it has looked.
func (w *waiter) mayDecide(buf []byte) bool {
	switch w.kind {
	case waitTag:
		if i, _ := findTag(string(buf[w.from:]), closeTags[:]); i >= 0 {
			return true
		}
		w.from = max(w.from, len(buf)-(maxCloseTag-1))
		return false
	case waitMarker:
		if bytes.Contains(buf[w.from:], []byte(w.marker)) {
			return true
		}
		w.from = max(w.from, len(buf)-(len(w.marker)-1))
		return false
	case waitFence:
		if bytes.Contains(buf[w.from:], []byte("```")) {
			return true
		}
		w.from = max(w.from, len(buf)-2)
		return false
	case waitObject:
		w.tr.feed(string(buf[w.from:]))
		w.from = len(buf)
		// Scan when the braces balance, and also whenever the text has
		// doubled, so prose that merely starts with "{" is released after
		// a bounded delay and the total work stays linear.
		return w.tr.closed || len(buf) >= 2*w.scanned
	default:
		return true
	}
}

// depthTracker follows the nesting of a lenient JSON text byte by byte,
// through double- and single-quoted strings, to see where it may end.
type depthTracker struct {
	depth  int
	quote  byte // the open string's quote, or 0
	esc    bool
	closed bool // the nesting came back to zero
}

func (t *depthTracker) feed(s string) {
	for i := 0; i < len(s) && !t.closed; i++ {
		c := s[i]
		if t.quote != 0 {
			switch {
			case t.esc:
				t.esc = false
			case c == '\\':
				t.esc = true
			case c == t.quote:
				t.quote = 0
			}
			continue
		}
		switch c {
		case '"', '\'':
			t.quote = c
		case '{', '[':
			t.depth++
		case '}', ']':
			t.depth--
			t.closed = t.depth <= 0
		}
	}
}
