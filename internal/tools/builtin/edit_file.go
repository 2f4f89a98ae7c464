package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

//go:embed edit_file.md
var editFileDoc string

// editMaxBytes caps the files edit_file rewrites in memory.
const editMaxBytes = 16 << 20

type editFileArgs struct {
	Path       string `json:"path"`
	OldText    string `json:"old_text"`
	NewText    string `json:"new_text"`
	ReplaceAll bool   `json:"replace_all"`
}

func newEditFile(rs *roots) *tool {
	return &tool{
		info: tools.Info{
			Name:        nameEditFile,
			Title:       "Edit file",
			Description: fmt.Sprintf(editFileDoc, formatSize(editMaxBytes)),
			InputSchema: schema(`{"type":"object","properties":{` +
				`"path":{"type":"string","description":"File to edit: relative to the first allowed root, or absolute inside a root."},` +
				`"old_text":{"type":"string","minLength":1,"description":"Exact text to replace, including whitespace and line breaks."},` +
				`"new_text":{"type":"string","description":"Replacement text; empty deletes old_text."},` +
				`"replace_all":{"type":"boolean","description":"Replace every occurrence instead of requiring exactly one. Default false."}` +
				`},"required":["path","old_text","new_text"],"additionalProperties":false}`),
			Annotations: destructive("Edit file", false, false),
		},
		run: func(ctx context.Context, raw json.RawMessage) (*tools.Result, error) {
			var a editFileArgs
			if err := decodeArgs(nameEditFile, raw, &a); err != nil {
				return errResult(err), nil
			}
			text, err := editFile(rs, a)
			if err != nil {
				return errResult(err), nil
			}
			return tools.TextResult(text), nil
		},
	}
}

func editFile(rs *roots, a editFileArgs) (string, error) {
	rs = rs.forCall() // one look at where Switchboard's files are, for this call
	if a.OldText == "" {
		return "", errors.New("old_text is empty; give the exact text to replace (use write_file to create or overwrite a whole file)")
	}
	if a.OldText == a.NewText {
		return "", errors.New("old_text and new_text are the same, so the edit would change nothing")
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
	if st.Size() > editMaxBytes {
		f.Close()
		return "", fmt.Errorf("%q is %s, more than the %s edit_file handles; use terminal with a tool such as sed for large files", l.arg, formatSize(st.Size()), formatSize(editMaxBytes))
	}
	data, err := io.ReadAll(io.LimitReader(f, editMaxBytes+1))
	f.Close()
	if err != nil {
		return "", rs.fsError("reading", l, err)
	}
	if isBinary(data[:min(len(data), sniffLen)], len(data) <= sniffLen) {
		return "", fmt.Errorf("%q looks like a binary file (NUL bytes or invalid UTF-8 in its first 8 KiB); edit_file edits text only", l.arg)
	}
	content := string(data)
	n := strings.Count(content, a.OldText)
	lines := matchLines(content, a.OldText, 10)
	switch {
	case n == 0:
		if line := looseMatch(content, a.OldText); line > 0 {
			return "", fmt.Errorf("old_text was not found exactly in %q, but text that differs only in whitespace or indentation starts at line %d; read those lines with read_file and copy them exactly", l.arg, line)
		}
		return "", fmt.Errorf("old_text was not found in %q; read the file again and copy the text exactly, including whitespace, indentation and line breaks", l.arg)
	case n > 1 && !a.ReplaceAll:
		return "", fmt.Errorf("old_text occurs %d times in %q (at lines %s); add surrounding lines to old_text so that it matches exactly once, or set replace_all to true to replace every occurrence", n, l.arg, lines)
	}
	updated := strings.ReplaceAll(content, a.OldText, a.NewText)
	if _, err := writeAtomic(rs, r, l, []byte(updated)); err != nil {
		return "", err
	}
	at := "line"
	if n > 1 {
		at = "lines"
	}
	return fmt.Sprintf("edited %q: replaced %s (at %s %s of the old file)", l.display(), plural(n, "occurrence"), at, lines), nil
}

// matchLines lists the line numbers where the non-overlapping occurrences of
// old start in s, at most limit of them.
func matchLines(s, old string, limit int) string {
	var (
		out  []string
		line = 1
		pos  = 0
	)
	for {
		i := strings.Index(s[pos:], old)
		if i < 0 {
			break
		}
		line += strings.Count(s[pos:pos+i], "\n")
		if len(out) == limit {
			out = append(out, "...")
			break
		}
		out = append(out, fmt.Sprint(line))
		line += strings.Count(old, "\n")
		pos += i + len(old)
	}
	return strings.Join(out, ", ")
}

// looseMatch finds old in s line by line, ignoring leading and trailing
// whitespace and line-ending differences, and returns the 1-based line where
// the first such match starts, or 0. It only makes the error for a failed
// exact match more helpful.
func looseMatch(s, old string) int {
	want := strings.Split(strings.TrimSpace(old), "\n")
	for i := range want {
		want[i] = strings.TrimSpace(want[i])
	}
	if len(want) == 1 && want[0] == "" {
		return 0
	}
	lines := strings.Split(s, "\n")
	for i := 0; i+len(want) <= len(lines); i++ {
		ok := true
		for j, w := range want {
			got := strings.TrimSpace(lines[i+j])
			// The first and last lines of old may be parts of lines.
			switch {
			case len(want) == 1:
				ok = strings.Contains(got, w)
			case j == 0:
				ok = strings.HasSuffix(got, w)
			case j == len(want)-1:
				ok = strings.HasPrefix(got, w)
			default:
				ok = got == w
			}
			if !ok {
				break
			}
		}
		if ok {
			return i + 1
		}
	}
	return 0
}
