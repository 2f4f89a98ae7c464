package mcpserve

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// slowPlainID is plainID without its hand-checked path.
func slowPlainID(id []byte) bool {
	if len(id) == 0 {
		return false
	}
	if id[0] == '"' {
		var s string
		return json.Unmarshal(id, &s) == nil
	}
	var n json.Number
	return (id[0] == '-' || '0' <= id[0] && id[0] <= '9') && json.Unmarshal(id, &n) == nil
}

func TestPlainID(t *testing.T) {
	tests := map[string]bool{
		`1`: true, `0`: true, `-7`: true, `123456789012345678901234567890`: true, `1.5`: true, `1e3`: true,
		`"abc-DEF_09"`: true, `""`: true, `"a b"`: true, `"\u00e9"`: true, `"é"`: true,
		`01`: false, `-`: false, `--1`: false, `"`: false, `"abc`: false, `abc`: false, `null`: false,
		`true`: false, `{}`: false, `[1]`: false, `"a"b"`: false, `"\x"`: false, "\"a\x01\"": false, ``: false, `1 `: true,
	}
	for id, want := range tests {
		if got := plainID(json.RawMessage(id)); got != want {
			t.Errorf("plainID(%s) = %v, want %v", id, got, want)
		}
	}
	// Whatever the hand check accepts, encoding/json accepts too.
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte(`"-0123456789aZ_ .e\`)
	for range 100_000 {
		b := make([]byte, 1+rng.IntN(6))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		if simpleID(b) && !slowPlainID(b) {
			t.Fatalf("simpleID accepts %q, which encoding/json does not", b)
		}
		if plainID(b) != slowPlainID(b) {
			t.Fatalf("plainID(%q) = %v, encoding/json says %v", b, plainID(b), slowPlainID(b))
		}
	}
}
