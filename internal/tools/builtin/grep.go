package builtin

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/protect"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

//go:embed grep.md
var grepDoc string

const (
	grepDefaultMatches = 100
	grepMaxMatches     = 1000
	grepMaxLine        = 300
	grepMaxFileBytes   = 16 << 20
)

type grepArgs struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Glob       string `json:"glob"`
	MaxMatches int    `json:"max_matches"`
	IgnoreCase bool   `json:"ignore_case"`
}

func newGrep(rs *roots) *tool {
	return &tool{
		info: tools.Info{
			Name:        nameGrep,
			Title:       "Search files",
			Description: fmt.Sprintf(grepDoc, grepDefaultMatches, grepMaxMatches, grepMaxLine, formatSize(grepMaxFileBytes)),
			InputSchema: schema(fmt.Sprintf(`{"type":"object","properties":{`+
				`"pattern":{"type":"string","minLength":1,"description":"Go (RE2) regular expression matched against each line."},`+
				`"path":{"type":"string","description":"Directory or file to search: relative to the first allowed root, or absolute inside a root. Default: every root."},`+
				`"glob":{"type":"string","description":"Only files whose name matches this pattern, e.g. *.go."},`+
				`"max_matches":{"type":"integer","minimum":1,"maximum":%d,"description":"Stop after this many matching lines. Default %d."},`+
				`"ignore_case":{"type":"boolean","description":"Match case-insensitively. Default false."}`+
				`},"required":["pattern"],"additionalProperties":false}`, grepMaxMatches, grepDefaultMatches)),
			Annotations: readOnly("Search files"),
		},
		run: func(ctx context.Context, raw json.RawMessage) (*tools.Result, error) {
			var a grepArgs
			if err := decodeArgs(nameGrep, raw, &a); err != nil {
				return errResult(err), nil
			}
			text, err := grep(ctx, rs, a)
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

// grepper holds one search's state.
type grepper struct {
	rs      *roots
	re      *regexp.Regexp
	glob    string
	max     int
	out     strings.Builder
	matches int
	files   int
	full    bool // max matches reached
}

func grep(ctx context.Context, rs *roots, a grepArgs) (string, error) {
	rs = rs.forCall() // one look at where Switchboard's files are, for this call
	if a.Pattern == "" {
		return "", errors.New("pattern is required; give a regular expression such as `TODO|FIXME`")
	}
	switch {
	case a.MaxMatches == 0:
		a.MaxMatches = grepDefaultMatches
	case a.MaxMatches < 0 || a.MaxMatches > grepMaxMatches:
		return "", fmt.Errorf("max_matches %d is out of range; use 1 to %d", a.MaxMatches, grepMaxMatches)
	}
	expr := a.Pattern
	if a.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return "", fmt.Errorf("pattern is not a valid Go regular expression: %v", err)
	}
	if a.Glob != "" {
		if _, err := path.Match(a.Glob, ""); err != nil {
			return "", fmt.Errorf("glob %q is malformed: %v; use a pattern such as *.go", a.Glob, err)
		}
	}
	g := &grepper{rs: rs, re: re, glob: a.Glob, max: a.MaxMatches}

	var locs []loc
	if a.Path == "" {
		for i := range rs.list {
			locs = append(locs, loc{root: &rs.list[i], rel: ".", arg: rs.list[i].dir, first: i == 0})
		}
	} else {
		l, err := rs.resolve(a.Path)
		if err != nil {
			return "", err
		}
		locs = []loc{l}
	}
	for _, l := range locs {
		if err := g.searchRoot(ctx, l); err != nil {
			return "", err
		}
		if g.full {
			break
		}
	}

	if g.matches == 0 {
		fmt.Fprintf(&g.out, "no matches for %q in %s searched", a.Pattern, plural(g.files, "file"))
		return g.out.String(), nil
	}
	if g.full {
		fmt.Fprintf(&g.out, "[stopped after %d matches; narrow the pattern, path or glob, or raise max_matches (at most %d)]", g.max, grepMaxMatches)
	}
	return strings.TrimSuffix(g.out.String(), "\n"), nil
}

func (g *grepper) searchRoot(ctx context.Context, l loc) error {
	rs := g.rs
	r, err := l.open()
	if err != nil {
		return err
	}
	defer r.Close()
	st, err := r.Stat(l.rel)
	if err != nil {
		return rs.fsError("searching", l, err)
	}
	if st.Mode().IsRegular() {
		// A protected file named outright is refused as read_file
		// refuses it; searchFile itself skips unreadable files quietly.
		f, _, err := openRegular(rs, r, l, l.rel)
		if errors.Is(err, protect.ErrProtected) {
			return err
		}
		if f != nil {
			f.Close()
		}
		g.searchFile(r, l, l.rel, true)
		return nil
	}
	if !st.IsDir() {
		return notRegular(l, st.Mode())
	}
	var walk func(rel string) error
	walk = func(rel string) error {
		es, err := readDir(rs, r, rel)
		if err != nil {
			if rel == l.rel && errors.Is(err, protect.ErrProtected) {
				return protectedError(l, err)
			}
			if rel == l.rel {
				return rs.fsError("searching", l, err)
			}
			return nil // a subdirectory that vanished or is unreadable is skipped
		}
		for _, e := range es {
			if err := ctx.Err(); err != nil {
				return err
			}
			if g.full {
				return nil
			}
			child := filepath.Join(rel, e.Name())
			switch t := e.Type(); {
			case t.IsDir():
				if e.Name() == ".git" {
					continue
				}
				if err := walk(child); err != nil {
					return err
				}
			case t.IsRegular():
				if g.globMatch(l.rel, child) {
					g.searchFile(r, l, child, false)
				}
			}
		}
		return nil
	}
	return walk(l.rel)
}

func (g *grepper) globMatch(base, rel string) bool {
	if g.glob == "" {
		return true
	}
	if strings.Contains(g.glob, "/") {
		sub, err := filepath.Rel(base, rel)
		if err != nil {
			return false
		}
		ok, _ := path.Match(g.glob, filepath.ToSlash(sub))
		return ok
	}
	ok, _ := path.Match(g.glob, filepath.Base(rel))
	return ok
}

// searchFile appends rel's matching lines. Files that cannot be read, are
// binary or are too large are skipped silently, unless explicit (the path
// argument itself), when the reason is reported in the output.
func (g *grepper) searchFile(r *os.Root, l loc, rel string, explicit bool) {
	f, st, err := openRegular(g.rs, r, l, rel)
	if err != nil {
		return
	}
	defer f.Close()
	name := displayPath(l.root, l.first, rel)
	if st.Size() > grepMaxFileBytes {
		if explicit {
			fmt.Fprintf(&g.out, "[skipped %s: larger than %s]\n", name, formatSize(grepMaxFileBytes))
		}
		return
	}
	br := bufio.NewReaderSize(f, int(min(max(st.Size()+1, sniffLen), 64<<10)))
	head, _ := br.Peek(sniffLen)
	if isBinary(head, len(head) < sniffLen) {
		if explicit {
			fmt.Fprintf(&g.out, "[skipped %s: binary file]\n", name)
		}
		return
	}
	g.files++
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 4<<10), grepMaxFileBytes)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if !g.re.Match(line) {
			continue
		}
		if g.matches == g.max {
			g.full = true
			return
		}
		g.matches++
		line = bytes.TrimRight(line, "\r")
		if len(line) > grepMaxLine {
			// Copy: line aliases the scanner's buffer.
			line = append(bytes.Clone(trimPartialRune(line[:grepMaxLine])), "…"...)
		}
		fmt.Fprintf(&g.out, "%s:%d:%s\n", name, n, line)
	}
}
