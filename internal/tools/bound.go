package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Bounded results.
//
// The text a model sees of one result is the text blocks plus the text of
// embedded text resources, taken as one string joined by "\n" (the same
// string [Result.Text] gives when there are no resources). When it is longer
// than the limit, the model sees about limit/2 bytes of its head and
// limit/2 of its tail, cut on UTF-8 boundaries, with a note in between that
// says how many bytes were cut and, when an output directory is configured,
// the tool output ID under which the whole string is kept as
// <OutputDir>/<id>.txt (offsets in the note are byte offsets into that file).
// Images, audio, resource links and binary resources pass through untouched.
// Structured content longer than the limit is dropped from the result and
// kept the same way under its own ID, with a note saying so.

// isText reports whether c counts as text for the limit.
func isText(c Content) bool {
	return c.Type == ContentText || c.Type == ContentResource && len(c.Data) == 0
}

// bound returns res cut to the registry's limit. res itself is not modified.
func (r *Registry) bound(tool string, res *Result) *Result {
	if r.limit < 0 {
		return res
	}
	out := res
	var n int
	var texts int
	for _, c := range res.Content {
		if isText(c) {
			if texts > 0 {
				n++
			}
			n += len(c.Text)
			texts++
		}
	}
	if n > r.limit {
		out = &Result{Content: r.cutText(tool, res.Content, n), Structured: res.Structured, IsError: res.IsError}
	}
	if len(res.Structured) > r.limit {
		if out == res {
			out = &Result{Content: append([]Content(nil), res.Content...), IsError: res.IsError}
		}
		out.Structured = nil
		id, ok := r.store(tool, string(res.Structured))
		var note string
		switch {
		case ok:
			note = fmt.Sprintf("[structured content of %d bytes dropped; it is stored as tool output ID %s — call read_tool_output with {\"id\": %q, \"offset\": 0, \"limit\": %d} to read it in pages]", len(res.Structured), id, id, r.pageSize())
		default:
			note = fmt.Sprintf("[structured content of %d bytes dropped; it was not kept]", len(res.Structured))
		}
		out.Content = append(out.Content, Content{Type: ContentText, Text: note})
	}
	return out
}

// pageSize is the limit suggested in notes: read_tool_output accepts 1 to
// 256 KiB per page.
func (r *Registry) pageSize() int { return min(max(r.limit, 1024), 256<<10) }

// cutText returns content with its text cut to the limit; n is the length of
// the joined text.
func (r *Registry) cutText(tool string, content []Content, n int) []Content {
	var full strings.Builder
	full.Grow(n)
	first := true
	for _, c := range content {
		if isText(c) {
			if !first {
				full.WriteByte('\n')
			}
			first = false
			full.WriteString(c.Text)
		}
	}
	s := full.String()

	head := r.limit / 2
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	tail := n - (r.limit - r.limit/2)
	for tail < n && !utf8.RuneStart(s[tail]) {
		tail++
	}
	cut := tail - head

	var note string
	if id, ok := r.store(tool, s); ok {
		note = fmt.Sprintf("[... %d bytes cut; the full output is stored as tool output ID %s — call read_tool_output with {\"id\": %q, \"offset\": %d, \"limit\": %d} to read it in pages ...]", cut, id, id, head, r.pageSize())
	} else {
		note = fmt.Sprintf("[... %d bytes cut; the full output was not kept ...]", cut)
	}

	out := make([]Content, 0, len(content)+2)
	pos := 0 // offset in s of the current text block
	noted := false
	for _, c := range content {
		if !isText(c) {
			out = append(out, c)
			continue
		}
		start, end := pos, pos+len(c.Text)
		pos = end + 1
		headPart := s[min(start, head):min(end, head)]
		tailPart := s[max(start, tail):max(end, tail)]
		if !noted && end > head {
			noted = true
			if c.Type == ContentText {
				c.Text = headPart + "\n\n" + note + "\n\n" + tailPart
				out = append(out, c)
				continue
			}
			if headPart != "" {
				h := c
				h.Text = headPart
				out = append(out, h)
			}
			out = append(out, Content{Type: ContentText, Text: note})
			if tailPart != "" {
				c.Text = tailPart
				out = append(out, c)
			}
			continue
		}
		if headPart == "" && tailPart == "" {
			continue // entirely inside the cut
		}
		c.Text = headPart + tailPart // at most one of them is non-empty
		out = append(out, c)
	}
	return out
}

// store writes text to a new file in the output
// directory and returns its ID. It reports false when no directory is
// configured or the file could not be written (logged at Warn).
func (r *Registry) store(tool, text string) (string, bool) {
	if r.outputDir == "" {
		return "", false
	}
	u, err := uuid.NewV7()
	if err != nil {
		r.logger.Warn("tool output not stored", logKeyTool, tool, logKeyErr, err)
		return "", false
	}
	id := "out_" + u.String()
	if err := writeOutput(r.outputDir, id, text); err != nil {
		r.logger.Warn("tool output not stored", logKeyTool, tool, logKeyErr, err)
		return "", false
	}
	return id, true
}

func writeOutput(dir, id, text string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating tool output directory: %w", err)
	}
	path := filepath.Join(dir, id+".txt")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("creating tool output file: %w", err)
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("writing tool output file: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return fmt.Errorf("closing tool output file: %w", err)
	}
	return nil
}
