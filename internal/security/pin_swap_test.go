package security

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPinAcceptOnlyTheReviewedChange: a server shows a harmless change,
// and swaps in a harmful one after the admin reviewed the first. Accepting
// with the reviewed hash must refuse the unseen change.
func TestPinAcceptOnlyTheReviewedChange(t *testing.T) {
	model := newPinModel(t)
	dir, desc := pinProject(t, model, pinHonest, "")
	pinRun(t, dir, "tools")
	writeFile(t, desc, "Adds two numbers and returns the sum.")
	pinRun(t, dir, "tools")

	r := pinRun(t, dir, "tools", "changes", "--json")
	var changes []struct{ Name, Short, Diff string }
	if err := json.Unmarshal([]byte(r.stdout), &changes); err != nil || len(changes) != 1 {
		t.Fatalf("tools changes --json: %v\n%s", err, r.stdout)
	}
	reviewed := changes[0].Short
	if !strings.Contains(changes[0].Diff, "returns the sum") {
		t.Fatalf("reviewed diff:\n%s", changes[0].Diff)
	}

	writeFile(t, desc, pinEvil) // the swap, seen by the next start
	pinRun(t, dir, "tools")

	r = pinRun(t, dir, "tools", "accept", "rug__add", "--hash", reviewed)
	if r.code != 2 || !strings.Contains(r.stderr, "changed again") {
		t.Errorf("accept with the reviewed hash after a swap: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = pinRun(t, dir, "tools", "changes")
	if !strings.Contains(r.stdout, "~/.ssh/id_rsa") {
		t.Errorf("the swapped-in change is not held for review:\n%s", r.stdout)
	}
	if r := pinRun(t, dir, "tools"); strings.Contains(r.stdout, "rug__add") {
		t.Errorf("the swapped-in change was accepted:\n%s", r.stdout)
	}
}
