package pin

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Diff returns a unified diff (3 lines of context) from the accepted
// definition to the pending one, as `switchboard tools changes`, the API
// and the web UI show it. Both are definitions as [Definition] encodes
// them; the description is shown one line per line of text, so a sentence
// added to a long description shows as that sentence.
func Diff(accepted, pending []byte) string {
	a, b := lines(accepted), lines(pending)
	ops := diffLines(a, b)
	var sb strings.Builder
	sb.WriteString("--- accepted\n+++ changed\n")
	const ctx = 3
	for i := 0; i < len(ops); {
		// Find the next change.
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i == len(ops) {
			break
		}
		start := max(i-ctx, 0)
		end := i
		// Extend the hunk while changes are within 2*ctx of each other.
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*ctx {
				end = min(end+ctx, len(ops))
				break
			}
			end = run
		}
		aStart, aLen, bStart, bLen := ops[start].a+1, 0, ops[start].b+1, 0
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				aLen++
			}
			if op.kind != '-' {
				bLen++
			}
		}
		fmt.Fprintf(&sb, "@@ -%d,%d +%d,%d @@\n", aStart, aLen, bStart, bLen)
		for _, op := range ops[start:end] {
			sb.WriteByte(op.kind)
			sb.WriteString(op.text)
			sb.WriteByte('\n')
		}
		i = end
	}
	return sb.String()
}

// lines renders a definition for reading: the JSON as encoded, except that
// the description's text lines each get their own line.
func lines(def []byte) []string {
	var d struct {
		Description string `json:"description"`
	}
	text := string(def)
	if json.Unmarshal(def, &d) == nil && strings.Contains(d.Description, "\n") {
		enc, _ := json.Marshal(d.Description)
		var parts []string
		for _, l := range strings.Split(d.Description, "\n") {
			parts = append(parts, "    "+l)
		}
		text = strings.Replace(text, `"description": `+string(enc), "\"description\": |\n"+strings.Join(parts, "\n"), 1)
	}
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

type diffOp struct {
	kind byte // ' ', '-' or '+'
	text string
	a, b int // index of the line in a and b where the op starts
}

// diffLines is a longest-common-subsequence line diff. Definitions are
// small (tens to hundreds of lines), so the quadratic table is cheap.
func diffLines(a, b []string) []diffOp {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []diffOp
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i], i, j})
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, diffOp{'-', a[i], i, j})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j], i, j})
			j++
		}
	}
	return ops
}
