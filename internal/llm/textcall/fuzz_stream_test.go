package textcall

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// corpusSeeds returns the replies of the corpus files, for the fuzzers.
func corpusSeeds(tb testing.TB) []string {
	files, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.jsonl"))
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if i := strings.Index(line, `"reply": "`); i >= 0 {
				out = append(out, line) // the raw line is as good a seed as the reply
			}
		}
	}
	return out
}

// FuzzStreamSplit checks that streaming gives the one-shot result for any
// split (two cut points, and pieces of a size chosen by the fuzzer), and
// that no input panics.
func FuzzStreamSplit(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.in, uint16(len(tc.in)/3), uint16(len(tc.in)/2), uint8(1))
	}
	for _, s := range corpusSeeds(f) {
		f.Add(s, uint16(len(s)/3), uint16(2*len(s)/3), uint8(3))
	}
	p := NewParser([]string{"get_weather", "search", "a__b"})
	f.Fuzz(func(t *testing.T, in string, c1, c2 uint16, step uint8) {
		want := view(p.Parse(in))
		a, b := int(c1)%(len(in)+1), int(c2)%(len(in)+1)
		if a > b {
			a, b = b, a
		}
		if diff := cmp.Diff(want, view(feedSplit(p, in, a, b))); diff != "" {
			t.Fatalf("cuts %d,%d of %q (-whole +stream):\n%s", a, b, in, diff)
		}
		n := int(step%16) + 1
		var cuts []int
		for i := n; i < len(in); i += n {
			cuts = append(cuts, i)
		}
		if diff := cmp.Diff(want, view(feedSplit(p, in, cuts...))); diff != "" {
			t.Fatalf("pieces of %d of %q (-whole +stream):\n%s", n, in, diff)
		}
	})
}
