package jsonstring

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestAppendAsEncodingJSON: every byte alone and between others, strings
// at the edges of UTF-8, and 100,000 random byte strings are encoded as
// encoding/json encodes them, with and without HTML escaping.
func TestAppendAsEncodingJSON(t *testing.T) {
	check := func(s string) {
		for _, html := range []bool{true, false} {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(html)
			if err := enc.Encode(s); err != nil {
				t.Fatal(err)
			}
			w := bytes.TrimSuffix(want.Bytes(), []byte("\n"))
			if got := Append([]byte("x"), s, html); string(got) != "x"+string(w) {
				t.Fatalf("Append(%q, html %v) = %s, want %s", s, html, got[1:], w)
			}
		}
	}
	for c := range 256 {
		check(string([]byte{byte(c)}))
		check("a" + string([]byte{byte(c)}) + "b")
	}
	for _, s := range []string{"", "\u2028\u2029", "\xe2\x80", "\xed\xa0\x80", "\U0010ffff", "\xf4\x90\x80\x80", "<&>", "日本", "é\x00"} {
		check(s)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 100_000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		check(string(b))
	}
}

func BenchmarkAppend(b *testing.B) {
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = Append(buf[:0], "Echo: hello <world> & a line\n", true)
	}
}
