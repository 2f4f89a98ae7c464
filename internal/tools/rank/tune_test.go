package rank

import (
	"fmt"
	"os"
	"testing"
)

// TestTune searches the retriever's weights with 5-fold cross-validation
// on the development requests: for each fold, a coordinate search on the
// other four folds picks the weights, and the fold itself is scored with
// them. It prints the held-out (cross-validated) recall, and the weights
// each fold chose, so the defaults can be set to weights that hold up on
// requests they were not chosen on. It runs only with RANK_TUNE=1: it
// takes a minute or two.
func TestTune(t *testing.T) {
	if os.Getenv("RANK_TUNE") == "" {
		t.Skip("set RANK_TUNE=1 to search the weights")
	}
	docs := DocsOf(LoadCatalogue(t))
	qs := LoadQueries(t)
	probes := LoadProbes(t, 1)
	lx := builtinLexicon()
	cache := make(map[string][]int)
	ranksOf := func(p params) []int {
		key := fmt.Sprint(p)
		if r, ok := cache[key]; ok {
			return r
		}
		_, r := recallAt(newIndex(docs, nil, p, lx), qs)
		cache[key] = r
		return r
	}
	const folds = 5
	foldOf := func(i int) int { return i % folds }
	cvRanks := make([]int, len(qs))
	for f := range folds {
		train := func(i int) bool { return foldOf(i) != f }
		best := search(defaultParams(), func(p params) float64 { return objective(ranksOf(p), train) })
		ranks := ranksOf(best)
		for i := range qs {
			if !train(i) {
				cvRanks[i] = ranks[i]
			}
		}
		t.Logf("fold %d: %+v", f, best)
	}
	t.Logf("cross-validated:%s", formatRecall(recallFromRanks(cvRanks)))
	def := ranksOf(defaultParams())
	t.Logf("defaults:       %s", formatRecall(recallFromRanks(def)))
	all := search(defaultParams(), func(p params) float64 { return objective(ranksOf(p), func(int) bool { return true }) })
	t.Logf("best on all: %+v%s", all, formatRecall(recallFromRanks(ranksOf(all))))
	rp, _ := recallAt(newIndex(docs, nil, all, lx), probes)
	rd, _ := recallAt(newIndex(docs, nil, defaultParams(), lx), probes)
	t.Logf("probes with best on all:%s; with defaults:%s", formatRecall(rp), formatRecall(rd))
}

// objective rewards the gold tool high in the ranking: recall at 5, 10, 20
// and 40, and the reciprocal rank.
func objective(ranks []int, use func(int) bool) float64 {
	var sum float64
	n := 0
	for i, r := range ranks {
		if !use(i) {
			continue
		}
		n++
		for _, k := range []int{5, 10, 20, 40} {
			if r > 0 && r <= k {
				sum++
			}
		}
		if r > 0 {
			sum += 1 / float64(r)
		}
	}
	return sum / float64(max(n, 1))
}

func recallFromRanks(ranks []int) []float64 {
	out := make([]float64, len(evalKs))
	for i, k := range evalKs {
		for _, r := range ranks {
			if r > 0 && r <= k {
				out[i]++
			}
		}
		out[i] /= float64(max(len(ranks), 1))
	}
	return out
}

// search is a coordinate search: each weight in turn is tried at a few
// multiples of its value, keeping the best, for two passes.
func search(p params, score func(params) float64) params {
	best := score(p)
	knobs := []func(*params) *float64{
		func(p *params) *float64 { return &p.b },
		func(p *params) *float64 { return &p.k1 },
		func(p *params) *float64 { return &p.fieldWeight[fieldName] },
		func(p *params) *float64 { return &p.fieldWeight[fieldServer] },
		func(p *params) *float64 { return &p.fieldWeight[fieldParams] },
		func(p *params) *float64 { return &p.fieldWeight[fieldParamText] },
		func(p *params) *float64 { return &p.concept },
		func(p *params) *float64 { return &p.entity },
		func(p *params) *float64 { return &p.server },
		func(p *params) *float64 { return &p.reported },
	}
	for range 2 {
		for _, knob := range knobs {
			base := *knob(&p)
			for _, m := range []float64{0, 0.5, 0.75, 1.5, 2} {
				q := p
				*knob(&q) = base * m
				if base == 0 {
					*knob(&q) = m / 2
				}
				if s := score(q); s > best+1e-9 {
					best, p = s, q
				}
			}
		}
	}
	return p
}
