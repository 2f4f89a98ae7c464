package tools

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/google/uuid"
)

// OutputStore keeps the full text of tool outputs too long for a model to
// see whole, as <dir>/<id>.txt, where read_tool_output reads them. The
// [Registry] owns one for its output directory and hands every call the
// store of the call's user ([OutputStore.ForUser], [UserOf] the call's
// context) as [CallRequest].Output, so that a tool reading a very large
// result as a stream can put the text there as it arrives
// ([OutputStore.NewText]) instead of holding all of it in memory. Outputs
// are filed by user ([UserOutputDir]): an output ID alone never reaches
// another user's output. It is safe for concurrent use and owns no
// goroutines.
type OutputStore struct {
	dir string // the output directory; "" keeps nothing
	// user is the store ID of the user of a store made by ForUser, whose
	// outputs go to UserOutputDir(dir, user) (computed only when an output
	// is kept, so a call pays nothing for it otherwise).
	user   string
	byUser bool
	limit  int // bytes of text a model sees; negative means no limit
	logger *slog.Logger
}

// NewOutputStore returns a store writing to dir ("" keeps nothing) for a
// model that sees limit bytes of a text (negative: no limit). A nil logger
// discards the warnings about outputs that could not be kept.
func NewOutputStore(dir string, limit int, logger *slog.Logger) *OutputStore {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &OutputStore{dir: dir, limit: limit, logger: logger}
}

// ForUser returns the store of the outputs of the user with the store ID
// id ("" the local user): the same limit, writing to [UserOutputDir] of s's
// directory. A nil s, or one keeping nothing, is returned as it is.
func (s *OutputStore) ForUser(id string) *OutputStore {
	if s == nil || s.dir == "" {
		return s
	}
	return &OutputStore{dir: s.dir, user: id, byUser: true, limit: s.limit, logger: s.logger}
}

// target is the directory the store's outputs go to.
func (s *OutputStore) target() string {
	if s.byUser {
		return UserOutputDir(s.dir, s.user)
	}
	return s.dir
}

// StoredOutput describes a text that was kept in the [OutputStore] rather
// than in memory because it is longer than what a model sees: only its head
// and tail travel with the result. The [Registry] turns it into the same
// cut text with a note as any other long text (see bound.go).
type StoredOutput struct {
	// ID is the tool output ID for read_tool_output; "" when the text could
	// not be kept (no output directory, or writing it failed).
	ID string `json:"id,omitempty"`
	// Size is the length of the whole text in bytes.
	Size int64 `json:"size"`
	// Head and Tail are its first and last bytes, about half the model's
	// limit each, cut on UTF-8 boundaries. Head is the first len(Head)
	// bytes of the stored file.
	Head string `json:"head,omitempty"`
	Tail string `json:"tail,omitempty"`
}

// save writes text as a new output and returns its ID. It reports false
// when no directory is configured or the file could not be written (logged
// at Warn).
func (s *OutputStore) save(tool, text string) (string, bool) {
	w := s.create(tool)
	if w == nil {
		return "", false
	}
	if _, err := io.WriteString(w.w, text); err != nil {
		w.fail(fmt.Errorf("writing tool output file: %w", err))
		return "", false
	}
	return w.close()
}

// outputFile is one output being written. Writes are buffered: a decoder
// hands over a text in many small pieces (one per JSON escape).
type outputFile struct {
	s    *OutputStore
	tool string
	id   string
	path string
	f    *os.File
	w    *bufio.Writer
}

// outputBuffer is the write buffer of an output file.
const outputBuffer = 64 << 10

// create opens a new output file, or returns nil (logged) when there is no
// directory or the file cannot be made.
func (s *OutputStore) create(tool string) *outputFile {
	if s == nil || s.dir == "" {
		return nil
	}
	u, err := uuid.NewV7()
	if err != nil {
		s.logger.Warn("tool output not stored", logKeyTool, tool, logKeyErr, err)
		return nil
	}
	dir := s.target()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		s.logger.Warn("tool output not stored", logKeyTool, tool, logKeyErr, fmt.Errorf("creating tool output directory: %w", err))
		return nil
	}
	id := "out_" + u.String()
	path := filepath.Join(dir, id+".txt")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		s.logger.Warn("tool output not stored", logKeyTool, tool, logKeyErr, fmt.Errorf("creating tool output file: %w", err))
		return nil
	}
	return &outputFile{s: s, tool: tool, id: id, path: path, f: f, w: bufio.NewWriterSize(f, outputBuffer)}
}

// fail drops the file after a write error, logging why.
func (o *outputFile) fail(err error) {
	o.f.Close()
	os.Remove(o.path)
	o.s.logger.Warn("tool output not stored", logKeyTool, o.tool, logKeyErr, err)
}

// close finishes the file and returns its ID, or false (logged) when
// writing its last part or closing failed.
func (o *outputFile) close() (string, bool) {
	if err := o.w.Flush(); err != nil {
		o.fail(fmt.Errorf("writing tool output file: %w", err))
		return "", false
	}
	if err := o.f.Close(); err != nil {
		os.Remove(o.path)
		o.s.logger.Warn("tool output not stored", logKeyTool, o.tool, logKeyErr, fmt.Errorf("closing tool output file: %w", err))
		return "", false
	}
	return o.id, true
}

// NewText returns an [OutputText] that collects one text of the named
// tool's result. A nil store gives one that keeps every text in memory.
func (s *OutputStore) NewText(tool string) *OutputText {
	t := &OutputText{store: s, tool: tool, limit: -1}
	if s != nil && s.limit >= 0 {
		t.limit = s.limit
		t.half = max(s.limit/2, 1)
	}
	return t
}

// OutputText collects one text written in pieces (a string decoded from a
// stream) in bounded memory: while the text is no longer than the model's
// limit it is kept whole; once it outgrows the limit, it goes on into a new
// output file, and only its head and tail stay in memory. It is not safe for
// concurrent use. Call [OutputText.Finish] once, and [OutputText.Discard]
// (before or after Finish) to drop the text.
type OutputText struct {
	store *OutputStore
	tool  string
	limit int // -1: keep everything in memory
	half  int

	size    int64
	mem     []byte // the whole text until it spills; then its head
	spilled bool
	file    *outputFile // nil when spilled without a file (none configured, or it failed)
	kept    string      // path of the finished file, for Discard
	tail    []byte      // after spilling: the latest bytes, up to 2*half before compaction
}

// Write adds p to the text. It never fails: when the output file cannot be
// written, the text is no longer kept (the result then says so) and only
// its head and tail are.
func (t *OutputText) Write(p []byte) (int, error) {
	n := len(p)
	t.size += int64(n)
	if !t.spilled {
		if t.limit < 0 || len(t.mem)+len(p) <= t.limit {
			t.mem = append(t.mem, p...)
			return n, nil
		}
		t.spill()
	}
	if t.file != nil {
		if _, err := t.file.w.Write(p); err != nil {
			t.file.fail(fmt.Errorf("writing tool output file: %w", err))
			t.file = nil
		}
	}
	if room := t.half - len(t.mem); room > 0 {
		k := min(room, len(p))
		t.mem = append(t.mem, p[:k]...)
		p = p[k:]
	}
	t.keepTail(p)
	return n, nil
}

// spill moves the text from memory to a new output file, keeping the head.
func (t *OutputText) spill() {
	t.spilled = true
	t.file = t.store.create(t.tool)
	if t.file != nil {
		if _, err := t.file.w.Write(t.mem); err != nil {
			t.file.fail(fmt.Errorf("writing tool output file: %w", err))
			t.file = nil
		}
	}
	head := min(len(t.mem), t.half)
	t.keepTail(t.mem[head:])
	t.mem = t.mem[:head]
}

func (t *OutputText) keepTail(p []byte) {
	if len(p) >= t.half {
		t.tail = append(t.tail[:0], p[len(p)-t.half:]...)
		return
	}
	t.tail = append(t.tail, p...)
	if len(t.tail) > 2*t.half {
		t.tail = append(t.tail[:0], t.tail[len(t.tail)-t.half:]...)
	}
}

// Finish ends the text. A text within the limit comes back whole, with a
// nil *StoredOutput; a longer one comes back as a StoredOutput (and "").
func (t *OutputText) Finish() (string, *StoredOutput) {
	if !t.spilled {
		return string(t.mem), nil
	}
	st := &StoredOutput{Size: t.size}
	if t.file != nil {
		var ok bool
		if st.ID, ok = t.file.close(); ok {
			t.kept = t.file.path
		}
		t.file = nil
	}
	head := trimPartialRune(t.mem)
	tail := t.tail
	if len(tail) > t.half {
		tail = tail[len(tail)-t.half:]
	}
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	st.Head, st.Tail = string(head), string(tail)
	return "", st
}

// Discard drops the text and removes its output file, if any, also after
// Finish: for a result that turned out to be unusable.
func (t *OutputText) Discard() {
	if t.file != nil {
		t.file.f.Close()
		os.Remove(t.file.path)
		t.file = nil
	}
	if t.kept != "" {
		os.Remove(t.kept)
		t.kept = ""
	}
	t.mem, t.tail = nil, nil
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}
