package web_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// testResume reloads the page while a turn waits for approval: the page
// re-attaches to the run, shows the thread once (no duplicated message or
// card), and approving there finishes the turn.
func testResume(t *testing.T, b context.Context) {
	s := newStack(t, stackOptions{})
	ctx := tab(t, b)
	step(t, ctx, "opening the chat", chromedp.Navigate(s.url+"/"), chromedp.WaitVisible(chromedp.ID("input")))
	step(t, ctx, "sending", chromedp.SendKeys(chromedp.ID("input"), "please write resumed.txt"), chromedp.SendKeys(chromedp.ID("input"), kb.Enter))
	waitFor(t, ctx, "the approval card", `!!document.querySelector('.approval .approve')`)

	step(t, ctx, "reloading", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("input")))
	waitFor(t, ctx, "the approval card again", `!!document.querySelector('.approval .approve:not([disabled])')`)
	counts := eval[[]int](t, ctx, `[document.querySelectorAll('.msg.user').length, document.querySelectorAll('.tool-card').length, document.querySelectorAll('.approval').length]`)
	if len(counts) != 3 || counts[0] != 1 || counts[1] != 1 || counts[2] != 1 {
		t.Errorf("after the reload: %v user messages, tool cards, approval cards; want one each", counts)
	}
	if busy := eval[bool](t, ctx, `!document.getElementById('stop').hidden && document.getElementById('send').disabled`); !busy {
		t.Error("after the reload the page does not show the turn as running")
	}
	step(t, ctx, "approving", chromedp.Click(chromedp.CSS(".approval .approve")))
	waitFor(t, ctx, "the end of the run", `document.getElementById('status').textContent.startsWith('Done')`)
	if got, err := os.ReadFile(filepath.Join(s.root, "resumed.txt")); err != nil || string(got) != "hello from the browser" {
		t.Errorf("resumed.txt = %q, %v; want the model's content", got, err)
	}
	// Once the turn is over, a reload shows the conversation list again
	// and re-attaches to nothing.
	step(t, ctx, "reloading again", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("input")))
	waitFor(t, ctx, "the conversation list", `document.querySelectorAll('#conv-list li').length === 1`)
	if busy := eval[bool](t, ctx, `document.getElementById('stop').hidden`); !busy {
		t.Error("after the turn ended a reload shows a run in flight")
	}
}
