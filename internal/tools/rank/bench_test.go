package rank

import "testing"

// BenchmarkRank ranks the 506 tools of the toolbench catalogue for one
// request with two earlier turns and a used tool (the target is at most
// 2 ms per request on the project's 2-core machine; docs/BENCHMARKS.md).
func BenchmarkRank(b *testing.B) {
	ix := New(DocsOf(LoadCatalogue(b)), nil)
	q := Query{
		Text:    "Kill the lights in the living room and send the Q3 numbers to finance@acme.com",
		Context: []string{"Is LH 455 on time?", "What does my day look like tomorrow?"},
		Used:    []string{"travel__get_flight_status"},
	}
	b.ReportAllocs()
	for b.Loop() {
		ix.Rank(q)
	}
}

// BenchmarkNew indexes the toolbench catalogue: the cost paid once per
// catalogue change.
func BenchmarkNew(b *testing.B) {
	docs := DocsOf(LoadCatalogue(b))
	b.ReportAllocs()
	for b.Loop() {
		New(docs, nil)
	}
}
