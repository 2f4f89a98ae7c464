package sse

import (
	"bytes"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestWriteFlushes(t *testing.T) {
	rec := httptest.NewRecorder()
	if err := WriteEvent(rec, "", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if !rec.Flushed {
		t.Error("WriteEvent did not flush the ResponseWriter")
	}
	rec = httptest.NewRecorder()
	if err := WriteComment(rec, "ping\nwith a break"); err != nil {
		t.Fatal(err)
	}
	if got := rec.Body.String(); got != ": ping with a break\n\n" || !rec.Flushed {
		t.Errorf("WriteComment wrote %q (flushed %v)", got, rec.Flushed)
	}
}

// BenchmarkDecode measures framing alone, per event, for a typical
// provider chunk of about 200 bytes.
func BenchmarkDecode(b *testing.B) {
	const n = 1000
	var body bytes.Buffer
	for i := range n {
		fmt.Fprintf(&body, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"word %d %s\"}}\n\n", i, strings.Repeat("x", 80))
	}
	b.ReportAllocs()
	b.SetBytes(int64(body.Len()))
	for b.Loop() {
		d := NewDecoder(bytes.NewReader(body.Bytes()), nil)
		for {
			if _, err := d.Next(); err != nil {
				break
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/event")
}
