package tools

import (
	"context"
	"fmt"
	"testing"
)

func benchTools(n int) []Tool {
	ts := make([]Tool, n)
	for i := range ts {
		name := fmt.Sprintf("tool_%04d", i)
		if i%10 == 0 {
			name = fmt.Sprintf("tool.%04d", i) // needs a hashed name
		}
		ts[i] = newFake(name, fmt.Sprintf(`{"type":"object","properties":{"p%d":{"type":"string"}}}`, i%50))
	}
	return ts
}

// BenchmarkSetList measures replacing one source of 1,000 tools and listing
// the catalogue, as a reconnecting server does.
func BenchmarkSetList(b *testing.B) {
	r := NewRegistry(nil)
	r.Set(Source{Kind: KindBuiltin}, benchTools(10))
	ts := benchTools(1000)
	b.ReportAllocs()
	for b.Loop() {
		r.Set(Source{Kind: KindMCP, Server: "big"}, ts)
		if got := len(r.List()); got != 1010 {
			b.Fatalf("List has %d tools, want 1010", got)
		}
	}
}

// BenchmarkCall compares a call with and without argument validation; the
// difference is the validation overhead per call.
func BenchmarkCall(b *testing.B) {
	for _, bc := range []struct{ name, schema string }{
		{"no_schema", `{}`},
		{"validated", readSchema},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := NewRegistry(nil)
			r.Set(Source{Kind: KindMCP, Server: "files"}, []Tool{newFake("read_file", bc.schema)})
			req := &CallRequest{Arguments: []byte(`{"path":"/etc/hosts","limit":10,"mode":"text"}`)}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				res, err := r.Call(ctx, "files__read_file", req)
				if err != nil || res.IsError {
					b.Fatalf("Call = %v, %v", res, err)
				}
			}
		})
	}
}
