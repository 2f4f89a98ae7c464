package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

//go:embed write_file.md
var writeFileDoc string

type writeFileArgs struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

func newWriteFile(rs *roots) *tool {
	return &tool{
		info: tools.Info{
			Name:        nameWriteFile,
			Title:       "Write file",
			Description: writeFileDoc,
			InputSchema: schema(`{"type":"object","properties":{` +
				`"path":{"type":"string","description":"File to write: relative to the first allowed root, or absolute inside a root."},` +
				`"content":{"type":"string","description":"The complete new content of the file."}` +
				`},"required":["path","content"],"additionalProperties":false}`),
			Annotations: destructive("Write file", true, false),
		},
		run: func(ctx context.Context, raw json.RawMessage) (*tools.Result, error) {
			var a writeFileArgs
			if err := decodeArgs(nameWriteFile, raw, &a); err != nil {
				return errResult(err), nil
			}
			if a.Content == nil {
				return tools.ErrorResult("content is required; pass the complete new file content (an empty string for an empty file)"), nil
			}
			text, err := writeFile(rs, a.Path, *a.Content)
			if err != nil {
				return errResult(err), nil
			}
			return tools.TextResult(text), nil
		},
	}
}

func writeFile(rs *roots, path, content string) (string, error) {
	rs = rs.forCall() // one look at where Switchboard's files are, for this call
	l, err := rs.resolve(path)
	if err != nil {
		return "", err
	}
	r, err := l.open()
	if err != nil {
		return "", err
	}
	defer r.Close()
	created, err := writeAtomic(rs, r, l, []byte(content))
	if err != nil {
		return "", err
	}
	verb := "overwrote"
	if created {
		verb = "created"
	}
	return fmt.Sprintf("%s %q: %s, %s", verb, l.display(), plural(len(content), "byte"), plural(countLines(content), "line")), nil
}

// countLines counts lines the way editors number them: a final line without
// a newline counts, an empty text has none.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// plural formats n with word, adding "s" unless n is 1.
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
