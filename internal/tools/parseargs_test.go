package tools

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestParseArgsAsJSONSchema: parseArgs reads every text as
// jsonschema.UnmarshalJSON does, the reference: the same values, and an
// error exactly where it errs. The cases are the corners of RFC 8259 that
// decoders are known to disagree on (JSONTestSuite's i_ and n_ families:
// lone surrogates, big numbers, duplicate keys, leading zeros, trailing
// data), then generated documents and their mutations.
func TestParseArgsAsJSONSchema(t *testing.T) {
	cases := []string{
		`{}`, `{"a":1}`, `{"a":1.5e300,"b":-0,"c":123456789012345678901234567890}`,
		`{"s":"\u0000\ud83d\ude00\ud800x"}`, `{"a":1,"a":2}`, ` { "x" : [ 1 , {"y":null} , true ] } `,
		`{"s":"\"\\\/\b\f\n\r\t"}`, `{"n":1E5,"m":-1.0e-5}`, `{"k":"é"}`, `{"a":[[[[[]]]]]}`, `{"big":1e400}`,
		`{"s":"\uD834\uDD1E"}`, `{"s":"\udc00"}`, `{"x":01}`, `{"x":1}garbage`, `{"x":1} {"y":2}`, `{"x":.5}`,
		`{"x":1.}`, `{"x":-}`, `{"x":+1}`, `{"x":0x10}`, `{"x":Infinity}`, `{"x":NaN}`, `{"x":"\x"}`, `{"x":"a` + "\t" + `b"}`,
		`{"x":tru}`, `{"x":nul}`, `{"x":[1,]}`, `{"x":1,}`, `{'x':1}`, `{"x":"\u12"}`, `{"x":"\uzzzz"}`, `{"x":1}` + "\x00",
		"{\"x\":\"\xff\"}", "{\"x\":\"\xc3\"}", `{"é":1,"\u00e9":2}`, `{"":""}`, `{"x":[` + strings.Repeat(`[`, 1200) + strings.Repeat(`]`, 1200) + `]}`,
		`{"x":` + strings.Repeat(`{"a":`, 900) + `1` + strings.Repeat(`}`, 900) + `}`,
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 400 {
		doc := genJSON(rng, 0)
		cases = append(cases, `{"d":`+doc+`}`)
		b := []byte(`{"d":` + doc + `}`)
		for range 3 { // mutations: a byte changed, dropped or doubled
			m := bytes.Clone(b)
			i := rng.IntN(len(m))
			switch rng.IntN(3) {
			case 0:
				const set = "{}[]\",:\\ 0a-e.\x00\xff"
				m[i] = set[rng.IntN(len(set))]
			case 1:
				m = append(m[:i], m[i+1:]...)
			case 2:
				m = append(m[:i+1], m[i:]...)
			}
			cases = append(cases, string(m))
		}
	}
	for _, c := range cases {
		want, werr := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(c)))
		got, gerr := parseArgs([]byte(c))
		if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(want, got) {
			t.Fatalf("%.200q:\nparseArgs %#v, %v\n reference %#v, %v", c, got, gerr, want, werr)
		}
	}
}

// genJSON writes a random JSON value: nested objects and arrays, strings
// with escapes and non-ASCII, numbers of every form.
func genJSON(rng *rand.Rand, depth int) string {
	switch k := rng.IntN(9); {
	case k < 2 && depth < 6:
		var parts []string
		for i := range rng.IntN(4) {
			parts = append(parts, fmt.Sprintf("%q:%s", fmt.Sprint("k", i, rng.IntN(3)), genJSON(rng, depth+1)))
		}
		return "{" + strings.Join(parts, ",") + "}"
	case k < 4 && depth < 6:
		var parts []string
		for range rng.IntN(4) {
			parts = append(parts, genJSON(rng, depth+1))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case k == 4:
		return []string{`"plain"`, `"é日本"`, `"\u00e9\ud83d\ude00"`, `"\n\t\"\\"`, `"\ud800"`, `""`}[rng.IntN(6)]
	case k == 5:
		return []string{"0", "-0", "1.5", "-2e10", "1E-7", "12345678901234567890123", "3.0e+2"}[rng.IntN(7)]
	case k == 6:
		return []string{"true", "false", "null"}[rng.IntN(3)]
	}
	return fmt.Sprint(rng.IntN(1000))
}
