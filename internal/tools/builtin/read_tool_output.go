package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"syscall"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

//go:embed read_tool_output.md
var readToolOutputDoc string

const (
	outputDefaultLimit = 32 << 10
	outputMaxLimit     = 256 << 10
)

var outputIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`)

type readToolOutputArgs struct {
	ID     string `json:"id"`
	Offset int64  `json:"offset"`
	Limit  int    `json:"limit"`
}

func newReadToolOutput(dir string) *tool {
	return &tool{
		info: tools.Info{
			Name:        nameReadToolOutput,
			Title:       "Read stored tool output",
			Description: fmt.Sprintf(readToolOutputDoc, formatSize(outputDefaultLimit), formatSize(outputMaxLimit)),
			InputSchema: schema(fmt.Sprintf(`{"type":"object","properties":{`+
				`"id":{"type":"string","pattern":"^[A-Za-z0-9_-]{1,80}$","description":"Output id from the note of a cut tool result."},`+
				`"offset":{"type":"integer","minimum":0,"description":"Byte offset to start at. Default 0."},`+
				`"limit":{"type":"integer","minimum":1,"maximum":%d,"description":"Bytes to return. Default %d."}`+
				`},"required":["id"],"additionalProperties":false}`, outputMaxLimit, outputDefaultLimit)),
			Annotations: readOnly("Read stored tool output"),
		},
		run: func(ctx context.Context, raw json.RawMessage) (*tools.Result, error) {
			var a readToolOutputArgs
			if err := decodeArgs(nameReadToolOutput, raw, &a); err != nil {
				return errResult(err), nil
			}
			// Only the outputs of the user this call acts for: an ID
			// alone never reaches another user's output.
			text, err := readToolOutput(tools.UserOutputDir(dir, tools.UserOf(ctx)), a)
			if err != nil {
				return errResult(err), nil
			}
			return tools.TextResult(text), nil
		},
	}
}

func readToolOutput(dir string, a readToolOutputArgs) (string, error) {
	if !outputIDPattern.MatchString(a.ID) {
		return "", fmt.Errorf("id %q is malformed; copy the id from the note of the cut tool result (letters, digits, _ and -, at most 80)", a.ID)
	}
	limit, err := pageLimit(a.Limit)
	if err != nil {
		return "", err
	}
	a.Limit = limit
	if a.Offset < 0 {
		return "", fmt.Errorf("offset %d is negative; use 0 or more", a.Offset)
	}
	notFound := fmt.Errorf("no stored output with id %q among yours; it may have expired, the id was mistyped, or it is another user's output (each user reads only the outputs of their own calls)", a.ID)
	r, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", notFound
	} else if err != nil {
		return "", fmt.Errorf("opening the tool output store: %v", err)
	}
	defer r.Close()
	f, err := r.OpenFile(a.ID+".txt", os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return "", notFound
	} else if err != nil {
		return "", fmt.Errorf("opening stored output %q: %v", a.ID, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("opening stored output %q: %v", a.ID, err)
	}
	if !st.Mode().IsRegular() {
		return "", notFound
	}
	size := st.Size()
	if a.Offset > size || a.Offset == size && size > 0 {
		return "", fmt.Errorf("offset %d is past the end of output %q, which is %d bytes", a.Offset, a.ID, size)
	}
	buf := make([]byte, a.Limit)
	n, err := f.ReadAt(buf, a.Offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("reading stored output %q: %v", a.ID, err)
	}
	return formatPage(buf[:n], a.Offset, size, nameReadToolOutput, "output"), nil
}
