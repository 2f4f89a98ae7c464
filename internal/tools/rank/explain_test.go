package rank

import (
	"math"
	"testing"
)

func TestExplainAddsUpToText(t *testing.T) {
	ix := New(DocsOf(LoadCatalogue(t)), nil)
	q := Query{Text: "Kill the lights in the living room", Context: []string{"the lamp in the kitchen too"}}
	for _, s := range ix.Rank(q)[:5] {
		var sum float64
		ms := ix.Explain(q, s.Name)
		for _, m := range ms {
			sum += m.Score
		}
		if math.Abs(sum-s.Parts.Text) > 1e-3*max(1, s.Parts.Text) {
			t.Errorf("%s: matches add up to %.4f, text score is %.4f: %+v", s.Name, sum, s.Parts.Text, ms)
		}
	}
	if ix.Explain(q, "no__such_tool") != nil {
		t.Error("Explain of an unknown tool should be nil")
	}
}
