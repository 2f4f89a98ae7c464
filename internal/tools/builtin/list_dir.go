package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/protect"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

//go:embed list_dir.md
var listDirDoc string

const (
	listMaxDepth   = 5
	listMaxEntries = 1000
)

type listDirArgs struct {
	Path  string `json:"path"`
	Depth int    `json:"depth"`
}

func newListDir(rs *roots) *tool {
	return &tool{
		info: tools.Info{
			Name:        nameListDir,
			Title:       "List directory",
			Description: fmt.Sprintf(listDirDoc, listMaxDepth, listMaxEntries),
			InputSchema: schema(fmt.Sprintf(`{"type":"object","properties":{`+
				`"path":{"type":"string","description":"Directory to list: relative to the first allowed root, or absolute inside a root. Default: the first root."},`+
				`"depth":{"type":"integer","minimum":1,"maximum":%d,"description":"Levels to list. Default 1."}`+
				`},"additionalProperties":false}`, listMaxDepth)),
			Annotations: readOnly("List directory"),
		},
		run: func(ctx context.Context, raw json.RawMessage) (*tools.Result, error) {
			var a listDirArgs
			if err := decodeArgs(nameListDir, raw, &a); err != nil {
				return errResult(err), nil
			}
			text, err := listDir(ctx, rs, a)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				return errResult(err), nil
			}
			return tools.TextResult(text), nil
		},
	}
}

func listDir(ctx context.Context, rs *roots, a listDirArgs) (string, error) {
	rs = rs.forCall() // one look at where Switchboard's files are, for this call
	if a.Path == "" {
		a.Path = "."
	}
	switch {
	case a.Depth == 0:
		a.Depth = 1
	case a.Depth < 0 || a.Depth > listMaxDepth:
		return "", fmt.Errorf("depth %d is out of range; use 1 to %d", a.Depth, listMaxDepth)
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
	st, err := r.Stat(l.rel)
	if err != nil {
		return "", rs.fsError("listing", l, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%q is %s, not a directory; use read_file to read a file", l.arg, kind(st.Mode()))
	}

	var (
		lines     []string
		truncated bool
	)
	var walk func(rel, prefix string, depth int) error
	walk = func(rel, prefix string, depth int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		es, err := readDir(rs, r, rel)
		switch {
		case errors.Is(err, protect.ErrProtected) && rel != l.rel:
			lines = append(lines, prefix+"  (Switchboard's own files: not listed)")
			return nil
		case errors.Is(err, protect.ErrProtected):
			return protectedError(l, err)
		case err != nil:
			return rs.fsError("listing", l, err)
		}
		for _, e := range es {
			if len(lines) >= listMaxEntries {
				truncated = true
				return nil
			}
			name := prefix + e.Name()
			child := filepath.Join(rel, e.Name())
			switch t := e.Type(); {
			case t.IsDir():
				if e.Name() == ".git" && depth > 1 {
					lines = append(lines, name+"/  (not expanded)")
					continue
				}
				lines = append(lines, name+"/")
				if depth > 1 {
					if err := walk(child, name+"/", depth-1); err != nil {
						return err
					}
				}
			case t&fs.ModeSymlink != 0:
				target, err := r.Readlink(child)
				if err != nil {
					target = "?"
				}
				if escapes(loc{root: l.root, rel: child}) {
					target += "  (outside the allowed roots)"
				}
				lines = append(lines, name+" -> "+target)
			case t.IsRegular():
				size := "?"
				if info, err := e.Info(); err == nil {
					size = formatSize(info.Size())
				}
				lines = append(lines, fmt.Sprintf("%s  (%s)", name, size))
			default:
				lines = append(lines, fmt.Sprintf("%s  (%s)", name, kind(t)))
			}
		}
		return nil
	}
	if err := walk(l.rel, "", a.Depth); err != nil {
		return "", err
	}

	var b strings.Builder
	fmt.Fprintf(&b, "[directory %q, depth %d: %d entries]\n", l.display(), a.Depth, len(lines))
	if len(lines) == 0 {
		b.WriteString("(empty)\n")
	}
	for _, s := range lines {
		b.WriteString(s)
		b.WriteByte('\n')
	}
	if truncated {
		fmt.Fprintf(&b, "[stopped at %d entries; more exist: list a subdirectory or use a smaller depth]\n", listMaxEntries)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
