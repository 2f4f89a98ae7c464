package builtin

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

//go:embed read_file.md
var readFileDoc string

// countCap bounds how far read_file scans past what it returns just to count
// lines, so a huge file costs at most this much I/O per call.
const countCap = 64 << 20

type readFileArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

func newReadFile(rs *roots, maxBytes int64) *tool {
	return &tool{
		info: tools.Info{
			Name:        nameReadFile,
			Title:       "Read file",
			Description: fmt.Sprintf(readFileDoc, formatSize(maxBytes)),
			InputSchema: schema(`{"type":"object","properties":{` +
				`"path":{"type":"string","description":"File to read: relative to the first allowed root, or absolute inside a root."},` +
				`"offset":{"type":"integer","minimum":1,"description":"First line to return, 1-based. Default 1."},` +
				`"limit":{"type":"integer","minimum":1,"description":"Number of lines to return. Default: as many as fit in the size cap."}` +
				`},"required":["path"],"additionalProperties":false}`),
			Annotations: readOnly("Read file"),
		},
		run: func(ctx context.Context, raw json.RawMessage) (*tools.Result, error) {
			var a readFileArgs
			if err := decodeArgs(nameReadFile, raw, &a); err != nil {
				return errResult(err), nil
			}
			text, err := readFile(rs, a, maxBytes)
			if err != nil {
				return errResult(err), nil
			}
			return tools.TextResult(text), nil
		},
	}
}

func readFile(rs *roots, a readFileArgs, maxBytes int64) (string, error) {
	rs = rs.forCall() // one look at where Switchboard's files are, for this call
	if a.Offset < 0 || a.Limit < 0 {
		return "", errors.New("offset and limit must be positive; offset is the 1-based first line, limit a line count")
	}
	l, err := rs.resolve(a.Path)
	if err != nil {
		return "", err
	}
	r, err := l.open()
	if err != nil {
		return "", err
	}
	defer r.Close()
	f, st, err := openRegular(rs, r, l, l.rel)
	if err != nil {
		return "", err
	}
	defer f.Close()

	// Size the buffer to the file: most files are small.
	br := bufio.NewReaderSize(f, int(min(max(st.Size()+1, sniffLen), 64<<10)))
	head, err := br.Peek(sniffLen)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return "", rs.fsError("reading", l, err)
	}
	if len(head) == 0 {
		return fmt.Sprintf("[%q is empty]", l.display()), nil
	}
	if isBinary(head, len(head) < sniffLen) {
		return "", fmt.Errorf("%q looks like a binary file (NUL bytes or invalid UTF-8 in its first 8 KiB); read_file reads text only", l.arg)
	}

	first := max(a.Offset, 1)
	var (
		out       []byte
		line      = 1  // number of the line being read
		lineStart = 0  // len(out) when line began
		shownLast = 0  // last line shown, fully or (when cutLine) in part
		total     int  // lines in the file, once known
		cut       bool // output stopped at the byte cap
		cutLine   bool // ... inside line shownLast, which is longer than the cap
		scanned   int64
	)
	for {
		frag, err := br.ReadSlice('\n')
		scanned += int64(len(frag))
		inRange := line >= first && (a.Limit == 0 || line < first+a.Limit)
		if inRange && !cut && len(frag) > 0 {
			if len(out)+len(frag) <= int(maxBytes) {
				out = append(out, frag...)
				shownLast = line
			} else {
				cut = true
				if lineStart == 0 {
					// One line is longer than the cap: show its head.
					out = append(out, trimPartialRune(frag[:int(maxBytes)-len(out)])...)
					shownLast, cutLine = line, true
				} else {
					out = out[:lineStart]
					shownLast = line - 1
				}
			}
		}
		switch {
		case err == nil:
			line++
			lineStart = len(out)
		case errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			total = line
			if len(frag) == 0 {
				total = line - 1 // the file ends with a newline
			}
		default:
			return "", rs.fsError("reading", l, err)
		}
		if total > 0 {
			break
		}
		if scanned > countCap && (cut || (a.Limit > 0 && line >= first+a.Limit)) {
			break // enough counted; the total stays unknown
		}
	}
	if total > 0 && first > total {
		return "", fmt.Errorf("offset %d is past the end of %q, which has %d lines", a.Offset, l.arg, total)
	}
	more := total == 0 || shownLast < total || cutLine
	if a.Offset == 0 && a.Limit == 0 && !more {
		return string(out), nil
	}
	totalText := fmt.Sprint(total)
	if total == 0 {
		totalText = fmt.Sprintf("more than %d", line)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[lines %d-%d of %s in %q]\n", first, shownLast, totalText, l.display())
	b.Write(out)
	if more {
		if len(out) > 0 && out[len(out)-1] != '\n' {
			b.WriteByte('\n')
		}
		switch {
		case cutLine:
			fmt.Fprintf(&b, "[line %d is longer than %s and was cut; the rest of it cannot be shown; call read_file with offset=%d for the lines after it]", shownLast, formatSize(maxBytes), shownLast+1)
		case total == 0:
			fmt.Fprintf(&b, "[more lines follow; call read_file with offset=%d]", shownLast+1)
		case cut:
			fmt.Fprintf(&b, "[%d more lines; output stopped at the %s cap; call read_file with offset=%d]", total-shownLast, formatSize(maxBytes), shownLast+1)
		default:
			fmt.Fprintf(&b, "[%d more lines; call read_file with offset=%d]", total-shownLast, shownLast+1)
		}
	}
	return b.String(), nil
}

// formatSize prints n bytes in the largest binary unit that keeps it short.
func formatSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
