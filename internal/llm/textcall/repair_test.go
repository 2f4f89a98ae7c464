package textcall

import (
	"errors"
	"testing"
)

func TestRepairValue(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		final    bool
		want     string // strict JSON; empty when an error is expected
		n        int    // bytes consumed; -1 means len(in)
		repaired bool
		err      string // "incomplete" or a syntax error's text
	}{
		{"strict", `{"a": [1, 2.5e3, -0, true, null, "x\u00e9"]} tail`, false, `{"a":[1,2.5e3,-0,true,null,"x\u00e9"]}`, 44, false, ""},
		{"trailing commas", `[1,2,]`, true, `[1,2]`, -1, true, ""},
		{"single quotes with double inside", `{'a': 'say "hi"'}`, true, `{"a":"say \"hi\""}`, -1, true, ""},
		{"unquoted keys", `{a_b: 1, $c: 2, d-e: 3}`, true, `{"a_b":1,"$c":2,"d-e":3}`, -1, true, ""},
		{"python literals", `[True, False, None]`, true, `[true,false,null]`, -1, true, ""},
		{"control characters escaped", "[\"a\tb\x01\"]", true, `["a\tb\u0001"]`, -1, true, ""},
		{"unknown escape kept literally", `["C:\path"]`, true, `["C:\\path"]`, -1, true, ""},
		{"bad unicode escape kept literally", `["\u12"]`, true, `["\\u12"]`, -1, true, ""},
		{"invalid utf-8 replaced", "[\"\xff\"]", true, `["\ufffd"]`, -1, true, ""},
		{"closers supplied at the end", `{"a": [1, {"b": 2`, true, `{"a":[1,{"b":2}]}`, -1, true, ""},
		{"closer after trailing comma", `{"a": 1,`, true, `{"a":1}`, -1, true, ""},

		{"more may come: open object", `{"a": [1, {"b": 2`, false, "", 0, false, "incomplete"},
		{"more may come: number", `[12`, false, "", 0, false, "incomplete"},
		{"more may come: literal", `[tr`, false, "", 0, false, "incomplete"},
		{"more may come: unquoted key", `{abc`, false, "", 0, false, "incomplete"},
		{"more may come: escape", `["\`, false, "", 0, false, "incomplete"},
		{"more may come: unicode escape", `["\u00`, false, "", 0, false, "incomplete"},
		{"more may come: split rune", "[\"\xc3", false, "", 0, false, "incomplete"},

		{"unterminated string is not repaired", `{"a": "b`, true, "", 0, false, "unterminated string at offset 8"},
		{"missing value", `{"a": }`, true, "", 0, false, `unexpected character '}' at offset 6`},
		{"dangling colon at end", `{"a":`, true, "", 0, false, "unexpected end of text in value at offset 5"},
		{"unquoted value", `{"a": b}`, true, "", 0, false, `unexpected word "b" at offset 6`},
		{"unquoted key without colon", `{a b}`, true, "", 0, false, "unquoted key must be followed by ':' at offset 3"},
		{"missing comma", `[1 2]`, true, "", 0, false, `expected ',' or ']', found '2' at offset 3`},
		{"bad number", `[01]`, true, "", 0, false, `invalid number "01" at offset 1`},
		{"prose", `{curly} braces`, true, "", 0, false, "unquoted key must be followed by ':' at offset 6"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, n, repaired, err := repairValue(tc.in, tc.final)
			switch {
			case tc.err == "incomplete":
				if !errors.Is(err, errIncomplete) {
					t.Fatalf("repairValue(%q) error = %v, want incomplete", tc.in, err)
				}
				return
			case tc.err != "":
				if err == nil || err.Error() != tc.err {
					t.Fatalf("repairValue(%q) error = %v, want %q", tc.in, err, tc.err)
				}
				return
			case err != nil:
				t.Fatalf("repairValue(%q): %v", tc.in, err)
			}
			wantN := tc.n
			if wantN < 0 {
				wantN = len(tc.in)
			}
			if string(out) != tc.want || n != wantN || repaired != tc.repaired {
				t.Errorf("repairValue(%q) = %s, %d, %v; want %s, %d, %v", tc.in, out, n, repaired, tc.want, wantN, tc.repaired)
			}
		})
	}
}

func TestRepairDepthLimit(t *testing.T) {
	deep := ""
	for range maxDepth + 5 {
		deep += "["
	}
	if _, _, _, err := repairValue(deep, true); err == nil || errors.Is(err, errIncomplete) {
		t.Errorf("nesting beyond %d: error = %v, want a syntax error", maxDepth, err)
	}
}
