package textcall

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// corpusCase is one reply in the corpus: what a model of a family wrote,
// where its format is documented, the catalogue, and the calls that must
// run (none for a negative).
type corpusCase struct {
	Family         string       `json:"family"`
	Source         string       `json:"source"`
	Reply          string       `json:"reply"`
	Tools          []string     `json:"tools"`
	Calls          []corpusCall `json:"calls"`
	ReasoningDecoy bool         `json:"reasoning_decoy"`
	line           int
}

type corpusCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func readCorpus(t *testing.T, path string) []corpusCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("opening %s: %v", path, err)
	}
	defer f.Close()
	var out []corpusCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var c corpusCase
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		c.line = n
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return out
}

// catalogue is the case's tool names: those listed, and those of the
// expected calls (a "server__x" call is what the model wrote as "x").
func (c *corpusCase) catalogue() []string {
	seen := map[string]bool{}
	var names []string
	for _, n := range c.Tools {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, call := range c.Calls {
		if !seen[call.Name] {
			seen[call.Name] = true
			names = append(names, call.Name)
		}
	}
	return names
}

// check runs the reply whole, split in two at every byte, byte by byte and
// in 7-byte pieces, and compares the calls that would run.
func (c *corpusCase) check(p *Parser) error {
	if err := c.compare(p.Parse(c.Reply), "whole"); err != nil {
		return err
	}
	for i := 0; i <= len(c.Reply); i++ {
		if err := c.compare(feedSplit(p, c.Reply, i), fmt.Sprintf("split at %d", i)); err != nil {
			return err
		}
	}
	for _, step := range []int{1, 7} {
		var cuts []int
		for i := step; i < len(c.Reply); i += step {
			cuts = append(cuts, i)
		}
		if err := c.compare(feedSplit(p, c.Reply, cuts...), fmt.Sprintf("pieces of %d", step)); err != nil {
			return err
		}
	}
	return nil
}

func (c *corpusCase) compare(parts []Part, how string) error {
	var got []corpusCall
	for _, pt := range parts {
		if pt.Call != nil && pt.Call.Err == nil {
			got = append(got, corpusCall{Name: pt.Call.Name, Arguments: pt.Call.Arguments})
		}
	}
	if len(got) != len(c.Calls) {
		return fmt.Errorf("%s: %d calls run, want %d: %s", how, len(got), len(c.Calls), describe(got))
	}
	for i := range got {
		if got[i].Name != c.Calls[i].Name || !sameJSON(got[i].Arguments, c.Calls[i].Arguments) {
			return fmt.Errorf("%s: call %d is %s, want %s", how, i, describe(got[i:i+1]), describe(c.Calls[i:i+1]))
		}
	}
	return nil
}

func describe(calls []corpusCall) string {
	var b strings.Builder
	for _, c := range calls {
		fmt.Fprintf(&b, "%s(%s) ", c.Name, c.Arguments)
	}
	return b.String()
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if len(b) == 0 {
		b = json.RawMessage("{}")
	}
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// runCorpus checks every case of a file and returns the pass rate, logging
// it per family.
func runCorpus(t *testing.T, path string) float64 {
	cases := readCorpus(t, path)
	type tally struct{ pass, all int }
	fams := map[string]*tally{}
	pass := 0
	for i := range cases {
		c := &cases[i]
		tl := fams[c.Family]
		if tl == nil {
			tl = &tally{}
			fams[c.Family] = tl
		}
		tl.all++
		if err := c.check(NewParser(c.catalogue())); err != nil {
			t.Logf("%s:%d [%s] %v\n\treply: %q", filepath.Base(path), c.line, c.Family, err, c.Reply)
			continue
		}
		tl.pass++
		pass++
	}
	names := make([]string, 0, len(fams))
	for n := range fams {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Logf("%s: %-28s %d/%d", filepath.Base(path), n, fams[n].pass, fams[n].all)
	}
	if len(cases) == 0 {
		t.Fatalf("%s holds no cases", path)
	}
	rate := float64(pass) / float64(len(cases))
	t.Logf("%s: %d/%d cases pass (%.1f%%) in %d families", filepath.Base(path), pass, len(cases), 100*rate, len(fams))
	return rate
}

// TestCorpus replays the corpus of replies in each family's format. Our
// own cases must all pass; a held-out set written by someone else, when
// present, must pass at 95%.
func TestCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files in testdata/corpus: %v", err)
	}
	for _, f := range files {
		if rate := runCorpus(t, f); rate < 1 {
			t.Errorf("%s: %.1f%% pass, want 100%%", f, 100*rate)
		}
	}
	held := filepath.Join("testdata", "heldout.jsonl")
	if _, err := os.Stat(held); errors.Is(err, fs.ErrNotExist) {
		t.Logf("no %s: held-out set skipped", held)
		return
	}
	if rate := runCorpus(t, held); rate < 0.95 {
		t.Errorf("%s: %.1f%% pass, want at least 95%%", held, 100*rate)
	}
}
