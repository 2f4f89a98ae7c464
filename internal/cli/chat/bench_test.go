package chat

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// sampleAnswer is about 8 KB of typical answer markdown.
var sampleAnswer = strings.Repeat("## Step\n\nSome **bold** text and `code` in a paragraph that goes on for a while, as answers do.\n\n- item one\n- item two\n\n```go\nfmt.Println(\"hi\")\n```\n\n", 40)

// BenchmarkStreamRender measures rendering one answer while it streams in
// 40-byte deltas, rendered every 20 deltas (what the throttle does at a
// fast model's pace), whole each time versus by blocks.
func BenchmarkStreamRender(b *testing.B) {
	for _, mode := range []string{"whole", "blocks"} {
		b.Run(mode, func(b *testing.B) {
			var md markdown
			md.set(100, true)
			for b.Loop() {
				e := &entry{kind: entryAnswer}
				for i := 0; i < len(sampleAnswer); i += 40 {
					e.text = sampleAnswer[:min(i+40, len(sampleAnswer))]
					if (i/40)%20 != 0 {
						continue
					}
					if mode == "whole" {
						e.rendered = md.render(e.text)
					} else {
						md.renderStreaming(e)
					}
				}
				e.rendered = md.render(e.text) // the final render, in both modes
			}
		})
	}
}

// BenchmarkRefresh measures rebuilding a long transcript, done after every
// message (a key, a spinner frame).
func BenchmarkRefresh(b *testing.B) {
	for _, n := range []int{50, 500} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			m := newModel(context.Background(), &fakeBackend{}, &Options{Width: 100, Height: 40})
			for i := range n {
				m.add(&entry{kind: entryUser, text: "question"})
				m.add(&entry{kind: entryTool, call: call("c", "files__read", `{"path":"a.txt"}`), finished: true, ok: true, dur: time.Millisecond})
				m.add(&entry{kind: entryAnswer, text: fmt.Sprintf("Answer **%d**.", i), dirty: true})
			}
			m.refresh()
			for b.Loop() {
				m.refresh()
			}
		})
	}
}
