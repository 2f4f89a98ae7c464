package oauth

import "testing"

func TestMatchRedirect(t *testing.T) {
	reg := []string{
		"https://app.example.com/cb",
		"http://127.0.0.1:3000/callback",
		"http://localhost/oauth/callback",
		"http://[::1]:9/cb?x=1",
	}
	tests := []struct {
		name string
		uri  string
		want bool
	}{
		{"exact https", "https://app.example.com/cb", true},
		{"https other path", "https://app.example.com/cb2", false},
		{"https trailing slash", "https://app.example.com/cb/", false},
		{"https other port", "https://app.example.com:8443/cb", false},
		{"https other host", "https://evil.example.com/cb", false},
		{"https case of host", "https://APP.example.com/cb", false},
		{"https with fragment", "https://app.example.com/cb#x", false},
		{"https with query added", "https://app.example.com/cb?a=b", false},
		{"http downgrade", "http://app.example.com/cb", false},
		{"loopback any port", "http://127.0.0.1:51234/callback", true},
		{"loopback no port", "http://127.0.0.1/callback", true},
		{"loopback other path", "http://127.0.0.1:51234/other", false},
		{"loopback other loopback ip", "http://127.0.0.2:3000/callback", false},
		{"loopback to localhost name", "http://localhost:3000/callback", false},
		{"localhost any port", "http://localhost:40000/oauth/callback", true},
		{"localhost user info", "http://evil@localhost:40000/oauth/callback", false},
		{"localhost https not registered", "https://localhost:40000/oauth/callback", false},
		{"ipv6 loopback port and query", "http://[::1]:7000/cb?x=1", true},
		{"ipv6 loopback query differs", "http://[::1]:7000/cb?x=2", false},
		{"ipv6 loopback query dropped", "http://[::1]:7000/cb", false},
		{"empty", "", false},
		{"garbage", "http://%zz", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MatchRedirect(reg, tt.uri); got != tt.want {
				t.Errorf("MatchRedirect(%q) = %v, want %v", tt.uri, got, tt.want)
			}
		})
	}
}

// TestMatchRedirectNonLoopbackNoPortFlex is the attack test for port
// flexibility: it must stay with loopback registrations.
func TestMatchRedirectNonLoopbackNoPortFlex(t *testing.T) {
	reg := []string{"http://intranet.example.com:3000/cb", "http://10.0.0.1:3000/cb"}
	for _, uri := range []string{"http://intranet.example.com:4000/cb", "http://10.0.0.1:4000/cb"} {
		if MatchRedirect(reg, uri) {
			t.Errorf("MatchRedirect(%q) = true: a port change on a non-loopback host must not match", uri)
		}
	}
}
