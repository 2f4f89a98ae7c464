package builtin

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// pageLimit returns the bytes a page of read_tool_output or read_upload
// holds: limit, the default for 0, or why it is out of range.
func pageLimit(limit int) (int, error) {
	switch {
	case limit == 0:
		return outputDefaultLimit, nil
	case limit < 0 || limit > outputMaxLimit:
		return 0, fmt.Errorf("limit %d is out of range; use 1 to %d", limit, outputMaxLimit)
	}
	return limit, nil
}

// formatPage renders read, the bytes of a text of size bytes read at
// offset, as a page: cut on character boundaries, and closed by a line
// giving the range, the size and the offset to call tool with for more,
// or the end of the whole ("file", "output"). A page that ends inside a
// character stops before it; one that starts inside a character skips
// its tail, which the range still counts, so that offsets stay exact.
func formatPage(read []byte, offset, size int64, tool, whole string) string {
	page := read
	end := offset + int64(len(page))
	if end < size {
		// A limit smaller than one character returns the bytes read whole.
		if cut := trimPartialRune(page); len(cut) > 0 {
			page = cut
			end = offset + int64(len(cut))
		}
	}
	for offset > 0 && len(page) > 0 && !utf8.RuneStart(page[0]) {
		page = page[1:]
	}
	var b strings.Builder
	b.Write(page)
	if len(page) > 0 && page[len(page)-1] != '\n' {
		b.WriteByte('\n')
	}
	if end < size {
		fmt.Fprintf(&b, "[bytes %d-%d of %d; call %s with offset=%d for more]", offset, end, size, tool, end)
	} else {
		fmt.Fprintf(&b, "[bytes %d-%d of %d; end of %s]", offset, end, size, whole)
	}
	return b.String()
}
