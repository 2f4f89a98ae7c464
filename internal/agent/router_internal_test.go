package agent

import "testing"

func TestParseYesNo(t *testing.T) {
	tests := []struct {
		in      string
		yes, ok bool
	}{
		{"yes", true, true},
		{"Yes.", true, true},
		{"**NO**", false, true},
		{"Answer: no", false, true},
		{"no, it does not", false, true},
		{"Y", true, true},
		{"It doesn't need tools.", false, true},
		{"  yes  \n", true, true},
		{"maybe", false, false},
		{"", false, false},
		{"こんにちは", false, false},
	}
	for _, tc := range tests {
		yes, ok := parseYesNo(tc.in)
		if yes != tc.yes || ok != tc.ok {
			t.Errorf("parseYesNo(%q) = %v, %v; want %v, %v", tc.in, yes, ok, tc.yes, tc.ok)
		}
	}
}
