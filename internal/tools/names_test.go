package tools

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPrimaryName(t *testing.T) {
	tests := []struct {
		name   string
		origin Origin
		want   string
	}{
		{"builtin kept", Origin{KindBuiltin, "", "read_file"}, "read_file"},
		{"mcp kept", Origin{KindMCP, "files", "read_file"}, "files__read_file"},
		{"openapi kept", Origin{KindOpenAPI, "email", "send-mail"}, "email__send-mail"},
		{"tool with leading underscore kept", Origin{KindMCP, "a", "_b"}, "a___b"},
		{"dotted tool", Origin{KindMCP, "git", "repo.status"}, "git__repo_status_" + hex8(Origin{KindMCP, "git", "repo.status"})},
		{"server ending in underscore", Origin{KindMCP, "a_", "b"}, "a___b_" + hex8(Origin{KindMCP, "a_", "b"})},
		{"server with double underscore", Origin{KindMCP, "a__b", "c"}, "a__b__c_" + hex8(Origin{KindMCP, "a__b", "c"})},
		{"leading digit", Origin{KindMCP, "9lives", "x"}, "t9lives__x_" + hex8(Origin{KindMCP, "9lives", "x"})},
		{"unicode", Origin{KindMCP, "wé", "ß y"}, "w_____y_" + hex8(Origin{KindMCP, "wé", "ß y"})},
		{"builtin with double underscore", Origin{KindBuiltin, "", "a__b"}, "a__b_" + hex8(Origin{KindBuiltin, "", "a__b"})},
		{"empty tool", Origin{KindMCP, "s", ""}, "s___" + hex8(Origin{KindMCP, "s", ""})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := primaryName(tt.origin)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("primaryName mismatch (-want +got):\n%s", diff)
			}
			if !ValidName(got) {
				t.Errorf("primaryName(%v) = %q, not a valid name", tt.origin, got)
			}
		})
	}
}

func hex8(o Origin) string { return fmt.Sprintf("%x", originHash(o, ""))[:8] }

func TestPrimaryNameTooLong(t *testing.T) {
	o := Origin{KindMCP, "server", "a_very_long_tool_name_that_goes_on_and_on_and_on_past_the_limit"}
	got := primaryName(o)
	if len(got) != maxNameLen || !ValidName(got) {
		t.Errorf("primaryName(%v) = %q (%d bytes), want a valid name of %d bytes", o, got, len(got), maxNameLen)
	}
}

func TestAssignNamesCollision(t *testing.T) {
	// "a__b" + "c" hashes; "a" + "b__c" is kept as "a__b__c"; a builtin
	// cannot take a name with "__". Force a real collision through two
	// kinds with the same server and tool name.
	origins := []Origin{
		{KindOpenAPI, "mail", "send"},
		{KindMCP, "mail", "send"},
	}
	got := assignNames(origins)
	if got[1] != "mail__send" {
		t.Errorf("mcp tool got %q, want it to keep mail__send (mcp sorts before openapi)", got[1])
	}
	if got[0] == got[1] || !ValidName(got[0]) {
		t.Errorf("openapi tool got %q, want a valid name distinct from %q", got[0], got[1])
	}
	rev := assignNames([]Origin{origins[1], origins[0]})
	if diff := cmp.Diff([]string{got[1], got[0]}, rev); diff != "" {
		t.Errorf("names depend on order (-want +got):\n%s", diff)
	}
}

// TestAssignNamesProperty checks, for random server and tool names, that
// every name is valid, names are unique, and they do not depend on the
// order of the origins.
func TestAssignNamesProperty(t *testing.T) {
	alphabet := []string{"a", "b", "Z", "0", "9", "_", "__", "-", ".", " ", "é", "日本", "/", "x"}
	randName := func(r *rand.Rand) string {
		var s string
		for n := r.IntN(12); n > 0; n-- {
			s += alphabet[r.IntN(len(alphabet))]
		}
		if r.IntN(10) == 0 {
			for range 70 {
				s += "y"
			}
		}
		return s
	}
	kinds := []Kind{KindBuiltin, KindMCP, KindOpenAPI}
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 1))
		seen := map[Origin]bool{}
		var origins []Origin
		for range 1 + r.IntN(40) {
			o := Origin{Kind: kinds[r.IntN(3)], Name: randName(r)}
			if o.Kind != KindBuiltin {
				o.Server = randName(r)
			}
			if r.IntN(5) == 0 && len(origins) > 0 {
				// Reuse a server to make near-collisions likely.
				o.Server = origins[r.IntN(len(origins))].Server
			}
			if seen[o] {
				continue
			}
			seen[o] = true
			origins = append(origins, o)
		}
		names := assignNames(origins)
		byOrigin := map[Origin]string{}
		unique := map[string]Origin{}
		for i, n := range names {
			if !ValidName(n) {
				t.Fatalf("seed %d: %v got invalid name %q", seed, origins[i], n)
			}
			if prev, dup := unique[n]; dup {
				t.Fatalf("seed %d: %v and %v both got %q", seed, prev, origins[i], n)
			}
			unique[n] = origins[i]
			byOrigin[origins[i]] = n
		}
		shuffled := append([]Origin(nil), origins...)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		for i, n := range assignNames(shuffled) {
			if want := byOrigin[shuffled[i]]; n != want {
				t.Fatalf("seed %d: %v got %q after shuffling, %q before", seed, shuffled[i], n, want)
			}
		}
	}
}

func TestValidName(t *testing.T) {
	tests := map[string]bool{
		"a": true, "read_file": true, "A-b_9": true, "": false, "9a": false, "_a": false,
		"a.b": false, "a b": false, "é": false, string(make([]byte, 65)): false,
	}
	for name, want := range tests {
		if got := ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestDocumentedExample(t *testing.T) {
	if got := primaryName(Origin{KindMCP, "git", "repo.status"}); got != "git__repo_status_06342f11" {
		t.Errorf("primaryName = %q; update the example in the Registry doc", got)
	}
}
