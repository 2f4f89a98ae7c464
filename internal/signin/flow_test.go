package signin

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFlowRoundTrip(t *testing.T) {
	f := NewFlow()
	got, err := ParseFlow(f.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if got != f {
		t.Errorf("ParseFlow(Encode()) = %+v, want %+v", got, f)
	}
	if !f.StateMatches(f.State) || f.StateMatches(NewFlow().State) || f.StateMatches("") || (Flow{}).StateMatches("") {
		t.Error("StateMatches accepts a state that is not the flow's")
	}
	for _, bad := range []string{"", "a.b.c", f.State + "." + f.Nonce, f.Encode() + ".x", f.State + "." + f.Nonce + ".!!" + f.Verifier[2:]} {
		if _, err := ParseFlow(bad); err == nil {
			t.Errorf("ParseFlow(%q) accepted a malformed cookie", bad)
		}
	}
}

func TestClaimValues(t *testing.T) {
	tests := map[string][]string{
		`"admins"`:                {"admins"},
		`["a","b","a",3,{"x":1}]`: {"a", "b"},
		`{"roles":["admin"]}`:     nil,
		`42`:                      nil,
		``:                        nil,
	}
	for raw, want := range tests {
		if diff := cmp.Diff(want, claimValues(json.RawMessage(raw))); diff != "" {
			t.Errorf("claimValues(%s) mismatch (-want +got):\n%s", raw, diff)
		}
	}
}
