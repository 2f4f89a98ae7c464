package tools

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
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
// <OutputDir>/<user>/<id>.txt, filed under the call's user (see
// [UserOutputDir]; offsets in the note are byte offsets into that file).
// Images, audio, resource links and binary resources pass through untouched.
// Structured content longer than the limit is dropped from the result and
// kept the same way under its own ID, with a note saying so.
//
// A tool that reads a very large result as a stream keeps each long text in
// the [OutputStore] as it arrives and returns only its head and tail
// ([Content].Stored, [Result].StoredStructured). Such a block is shown the
// same way, on its own: head, note (with offsets into its own file), tail.
// The other text blocks are bounded as above, so a result that mixes both
// can show the model up to about twice the limit.

// isText reports whether c counts as text for the limit. A block whose text
// a tool already kept in the [OutputStore] does not: it is shown as its own
// head and tail with a note (see [StoredOutput]).
func isText(c Content) bool {
	return c.Stored == nil && (c.Type == ContentText || c.Type == ContentResource && len(c.Data) == 0)
}

// bound returns res cut to the registry's limit, with stored texts shown as
// head, note and tail. res itself is not modified.
// Outputs it keeps go to out, the store of the call's user.
func (r *Registry) bound(out *OutputStore, tool string, res *Result) *Result {
	var n, texts int
	stored := res.StoredStructured != nil
	for _, c := range res.Content {
		if c.Stored != nil {
			stored = true
		}
		if isText(c) {
			if texts > 0 {
				n++
			}
			n += len(c.Text)
			texts++
		}
	}
	cut := r.limit >= 0 && n > r.limit
	dropStructured := r.limit >= 0 && len(res.Structured) > r.limit
	if !stored && !cut && !dropStructured {
		return res
	}
	b := &Result{Content: res.Content, Structured: res.Structured, IsError: res.IsError}
	if cut {
		b.Content = r.cutText(out, tool, b.Content, n)
	}
	if stored {
		b.Content = r.showStored(b.Content)
	}
	switch {
	case res.StoredStructured != nil:
		b.Structured = nil
		b.Content = append(slices.Clip(b.Content), Content{Type: ContentText, Text: r.structuredNote(res.StoredStructured.Size, res.StoredStructured.ID)})
	case dropStructured:
		b.Structured = nil
		id, _ := out.save(tool, string(res.Structured))
		b.Content = append(slices.Clip(b.Content), Content{Type: ContentText, Text: r.structuredNote(int64(len(res.Structured)), id)})
	}
	return b
}

// structuredNote says that structured content of size bytes was dropped,
// and under which tool output ID it is kept ("" when it is not).
func (r *Registry) structuredNote(size int64, id string) string {
	if id == "" {
		return fmt.Sprintf("[structured content of %d bytes dropped; it was not kept]", size)
	}
	return fmt.Sprintf("[structured content of %d bytes dropped; it is stored as tool output ID %s — call read_tool_output with {\"id\": %q, \"offset\": 0, \"limit\": %d} to read it in pages]", size, id, id, r.pageSize())
}

// cutNote says that cut bytes were left out at offset of the text kept
// under id ("" when it is not kept).
func (r *Registry) cutNote(cut int64, id string, offset int) string {
	if id == "" {
		return fmt.Sprintf("[... %d bytes cut; the full output was not kept ...]", cut)
	}
	return fmt.Sprintf("[... %d bytes cut; the full output is stored as tool output ID %s — call read_tool_output with {\"id\": %q, \"offset\": %d, \"limit\": %d} to read it in pages ...]", cut, id, id, offset, r.pageSize())
}

// showStored replaces each block with a [StoredOutput] by its head and tail
// around a note, as cutText does for a text it cuts itself.
func (r *Registry) showStored(content []Content) []Content {
	out := make([]Content, 0, len(content)+2)
	for _, c := range content {
		st := c.Stored
		if st == nil {
			out = append(out, c)
			continue
		}
		c.Stored = nil
		note := r.cutNote(st.Size-int64(len(st.Head))-int64(len(st.Tail)), st.ID, len(st.Head))
		if c.Type != ContentResource {
			c.Type, c.Text = ContentText, st.Head+"\n\n"+note+"\n\n"+st.Tail
			out = append(out, c)
			continue
		}
		if st.Head != "" {
			h := c
			h.Text = st.Head
			out = append(out, h)
		}
		out = append(out, Content{Type: ContentText, Text: note})
		if st.Tail != "" {
			c.Text = st.Tail
			out = append(out, c)
		}
	}
	return out
}

// pageSize is the limit suggested in notes: read_tool_output accepts 1 to
// 256 KiB per page.
func (r *Registry) pageSize() int { return min(max(r.limit, 1024), 256<<10) }

// cutText returns content with its text cut to the limit, keeping the whole
// text in keep; n is the length of the joined text.
func (r *Registry) cutText(keep *OutputStore, tool string, content []Content, n int) []Content {
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
	id, _ := keep.save(tool, s)
	note := r.cutNote(int64(tail-head), id, head)

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
