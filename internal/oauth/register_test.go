package oauth

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckRedirectURIs(t *testing.T) {
	tests := []struct {
		uris []string
		ok   bool
	}{
		{[]string{"http://localhost:3000/callback"}, true},
		{[]string{"http://127.0.0.1/cb", "https://app.example.com/cb"}, true},
		{[]string{"http://[::1]:8080/cb"}, true},
		{nil, false},
		{[]string{"http://app.example.com/cb"}, false},          // plain http off loopback
		{[]string{"http://localhost.evil.example/cb"}, false},   // not loopback
		{[]string{"https://app.example.com/cb#frag"}, false},    // fragment
		{[]string{"https://user@app.example.com/cb"}, false},    // user info
		{[]string{"com.example.app:/cb"}, false},                // private-use scheme
		{[]string{"/cb"}, false},                                // relative
		{[]string{"javascript://localhost/%0aalert(1)"}, false}, // another scheme
		{[]string{"https://a.example/" + strings.Repeat("a", MaxRedirectURILen)}, false},
		{strings.Split(strings.Repeat("https://a.example/cb ", MaxRedirectURIs+1), " ")[:MaxRedirectURIs+1], false},
	}
	for _, tc := range tests {
		err := CheckRedirectURIs(tc.uris)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrRedirectURI)) {
			t.Errorf("CheckRedirectURIs(%.80q) = %v, want ok=%v", tc.uris, err, tc.ok)
		}
	}
}
