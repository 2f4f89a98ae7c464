package oauth

import (
	"errors"
	"strings"
	"testing"
)

const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk" // RFC 7636 appendix B

func TestS256RFCVector(t *testing.T) {
	if got, want := S256(verifier), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"; got != want {
		t.Fatalf("S256 = %q, want %q (RFC 7636 appendix B)", got, want)
	}
}

func TestCheckChallenge(t *testing.T) {
	good := S256(verifier)
	tests := []struct {
		name, method, challenge string
		want                    error
	}{
		{"s256", "S256", good, nil},
		{"missing challenge", "S256", "", ErrPKCEMissing},
		{"missing both", "", "", ErrPKCEMissing},
		{"plain", "plain", verifier, ErrPKCEMethod},
		{"method missing defaults to plain", "", good, ErrPKCEMethod},
		{"lower case s256", "s256", good, ErrPKCEMethod},
		{"short challenge", "S256", good[:20], ErrPKCEMalformed},
		{"padded challenge", "S256", good + "=", ErrPKCEMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CheckChallenge(tt.method, tt.challenge); !errors.Is(got, tt.want) {
				t.Errorf("CheckChallenge(%q, %q) = %v, want %v", tt.method, tt.challenge, got, tt.want)
			}
		})
	}
}

func TestVerifyPKCE(t *testing.T) {
	challenge := S256(verifier)
	tests := []struct {
		name, verifier string
		want           error
	}{
		{"right verifier", verifier, nil},
		{"wrong verifier", strings.Repeat("a", 43), ErrPKCEMismatch},
		{"missing verifier", "", ErrVerifierForm},
		{"challenge as verifier (plain)", challenge, ErrPKCEMismatch},
		{"too short", verifier[:42], ErrVerifierForm},
		{"too long", strings.Repeat("a", 129), ErrVerifierForm},
		{"bad alphabet", verifier[:42] + "+", ErrVerifierForm},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := VerifyPKCE(challenge, tt.verifier); !errors.Is(got, tt.want) {
				t.Errorf("VerifyPKCE(%q) = %v, want %v", tt.verifier, got, tt.want)
			}
		})
	}
}
