package chat

import (
	"strings"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/styles"
)

// markdown renders answers for the terminal. A renderer is built for one
// wrap width and style and rebuilt when they change, because glamour fixes
// both at construction. It is used by the UI goroutine only.
type markdown struct {
	r     *glamour.TermRenderer
	width int
	dark  bool
	// failed is set when no renderer could be built; answers are then
	// shown as the model wrote them.
	failed bool
}

// set makes the renderer wrap at width and use the dark or light style,
// and reports whether that changed anything (so answers need rendering
// again).
func (md *markdown) set(width int, dark bool) bool {
	if md.r != nil && md.width == width && md.dark == dark {
		return false
	}
	md.width, md.dark = width, dark
	style := styles.LightStyleConfig
	if dark {
		style = styles.DarkStyleConfig
	}
	r, err := glamour.NewTermRenderer(glamour.WithStyles(style), glamour.WithWordWrap(max(width, 20)))
	md.r, md.failed = r, err != nil
	return true
}

// render returns text as rendered markdown without the blank lines glamour
// puts around a document. Text it cannot render is returned as it is.
func (md *markdown) render(text string) string {
	if md.r == nil || md.failed || strings.TrimSpace(text) == "" {
		return text
	}
	out, err := md.r.Render(text)
	if err != nil {
		return text
	}
	return strings.Trim(out, "\n")
}

// renderStreaming renders a streaming answer cheaply: the blocks that are
// complete (ended by a blank line outside a code fence) are rendered once
// and kept in e.stable; only the open block at the end is rendered again.
// Rendering costs time linear in the text, and an answer is rendered many
// times while it streams, so rendering it whole each time would be
// quadratic. The finished answer is rendered whole once (see render).
func (md *markdown) renderStreaming(e *entry) {
	rest := e.text[e.stableLen:]
	if end := blockEnd(rest); end > 0 {
		if r := md.render(rest[:end]); r != "" {
			e.stable = joinBlocks(e.stable, r)
		}
		e.stableLen += end
		rest = rest[end:]
	}
	e.rendered = joinBlocks(e.stable, md.render(rest))
}

func joinBlocks(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}

// blockEnd returns the end of the last complete markdown block of s: the
// position just after its last blank line outside a fenced code block, or
// 0 when there is none. s must start outside a fence. An unterminated last
// line is not looked at: it may still grow.
func blockEnd(s string) int {
	inFence := false
	end := 0
	for pos := 0; pos < len(s); {
		nl := strings.IndexByte(s[pos:], '\n')
		if nl < 0 {
			break
		}
		line := s[pos : pos+nl]
		pos += nl + 1
		t := strings.TrimLeft(line, " ")
		switch {
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			inFence = !inFence
		case !inFence && strings.TrimSpace(line) == "":
			end = pos
		}
	}
	return end
}
