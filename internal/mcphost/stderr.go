package mcphost

import (
	"bytes"
	"sync"
)

// lineRing is an io.Writer that keeps the last n lines written to it, each
// cut to maxLen bytes, so a chatty or hostile server's stderr costs bounded
// memory. It is safe for concurrent use: os/exec copies stderr from its own
// goroutine while Status reads it.
type lineRing struct {
	mu      sync.Mutex
	lines   []string // mu guards lines, next, full, partial
	next    int
	full    bool
	partial []byte // the unfinished last line, at most maxLen bytes; the rest is dropped
	maxLen  int
}

func newLineRing(n, maxLen int) *lineRing {
	return &lineRing{lines: make([]string, n), maxLen: maxLen}
}

func (r *lineRing) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if room := r.maxLen - len(r.partial); room > 0 {
			r.partial = append(r.partial, chunk[:min(room, len(chunk))]...)
		}
		if i < 0 {
			break
		}
		r.pushLocked()
		p = p[i+1:]
	}
	return n, nil
}

func (r *lineRing) pushLocked() {
	r.storeLocked(r.partial)
	r.partial = r.partial[:0]
}

// storeLocked keeps line as the newest entry, dropping the oldest when full.
func (r *lineRing) storeLocked(line []byte) {
	r.lines[r.next] = string(bytes.TrimRight(line, "\r"))
	r.next = (r.next + 1) % len(r.lines)
	if r.next == 0 {
		r.full = true
	}
}

// addLine adds one whole line, prefix then line cut to maxLen, as its own
// entry: an unfinished line being written meanwhile stays apart.
func (r *lineRing) addLine(prefix string, line []byte) {
	b := make([]byte, 0, min(len(prefix)+len(line), r.maxLen))
	b = append(b, prefix...)
	b = append(b, line[:min(len(line), max(r.maxLen-len(b), 0))]...)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.storeLocked(b)
}

// Lines returns the kept lines, oldest first, including an unfinished last line.
func (r *lineRing) Lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	if r.full {
		out = append(out, r.lines[r.next:]...)
	}
	out = append(out, r.lines[:r.next]...)
	if len(r.partial) > 0 {
		out = append(out, string(r.partial))
	}
	return out
}
