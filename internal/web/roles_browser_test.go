package web_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
)

// testRoles: the UI hides what a user's role does not allow. An ordinary
// user sees the servers but neither their Restart button nor their
// stderr, and the audit page has no user filter (it shows only the user's
// own calls); an admin gets all of them.
func testRoles(t *testing.T, b context.Context) {
	for _, tc := range []struct {
		name  string
		admin bool
	}{{"user", false}, {"admin", true}} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStack(t, stackOptions{keys: true, plainUser: !tc.admin})
			ctx := tab(t, b)
			step(t, ctx, "opening servers", chromedp.Navigate(s.url+"/servers"), chromedp.WaitReady(chromedp.ID("main")))
			eval[bool](t, ctx, `localStorage.setItem('switchboard.apiKey', `+jsString(s.key)+`), true`)
			step(t, ctx, "reopening with the key", chromedp.Navigate(s.url+"/servers"), chromedp.WaitVisible(chromedp.CSS(`[data-server="notes"]`)))
			waitFor(t, ctx, "the role applied", `document.querySelectorAll('[data-server]').length === 2 && (!!document.getElementById('admin-note') || !!document.querySelector('[data-server="notes"] button'))`)
			restart := eval[bool](t, ctx, `!!document.querySelector('[data-server="notes"] button[aria-label="Restart notes"]')`)
			stderr := eval[bool](t, ctx, `[...document.querySelectorAll('[data-server="notes"] summary')].some(e => e.textContent.startsWith('stderr'))`)
			note := eval[bool](t, ctx, `!!document.getElementById('admin-note')`)
			if restart != tc.admin || stderr != tc.admin || note == tc.admin {
				t.Errorf("servers page: restart button %v, stderr %v, admin note %v; want %v, %v, %v", restart, stderr, note, tc.admin, tc.admin, !tc.admin)
			}
			step(t, ctx, "opening audit", chromedp.Navigate(s.url+"/audit"), chromedp.WaitReady(chromedp.ID("filters")))
			waitFor(t, ctx, "the role applied to the filters", `!!document.getElementById('filters').dataset.role`)
			visible := eval[bool](t, ctx, `!document.getElementById('f-user').closest('div').hidden`)
			if visible != tc.admin {
				t.Errorf("audit user filter visible = %v; want %v", visible, tc.admin)
			}
		})
	}
}
