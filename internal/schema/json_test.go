package schema

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzDecode checks the hand-written parser against encoding/json: it
// accepts exactly the valid documents, and what it re-encodes means the same.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `{"a":[1,-0.5e+3,true,false,null,"x"]}`, `"\u00e9\ud83d\ude00\ud800x\\\/\b\f\n\r\t"`,
		`{"a":1,"a":2}`, "\"\xff\"", `01`, `1.`, `-`, `{"a" 1}`, `[1,]`, `{"a":1,}`, ` {"z":{"y":[{}]}} `,
		"\"\u2028\"", `"<&>"`, `{"a":"\u0000"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		v, err := decode(in)
		if valid := json.Valid(in); valid != (err == nil) {
			if err != nil && len(in) > 0 && nestingOver(in) {
				return // deeper than maxNesting: refused on purpose
			}
			t.Fatalf("decode(%q) error = %v, but json.Valid = %v", in, err, valid)
		}
		if err != nil {
			return
		}
		want, err := unmarshalNumbers(in)
		if err != nil {
			t.Fatal(err)
		}
		out := encode(nil, v)
		got, err := unmarshalNumbers(out)
		if err != nil {
			t.Fatalf("encode gave invalid JSON %q for %q: %v", out, in, err)
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("round trip of %q: got %#v, want %#v", in, got, want)
		}
	})
}

func unmarshalNumbers(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func nestingOver(in []byte) bool {
	depth, max := 0, 0
	for _, c := range in {
		switch c {
		case '{', '[':
			depth++
			if depth > max {
				max = depth
			}
		case '}', ']':
			depth--
		}
	}
	return max > maxNesting
}
