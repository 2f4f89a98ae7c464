package oauth

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCheckClientIDURL(t *testing.T) {
	tests := []struct {
		url           string
		allowLoopback bool
		ok            bool
	}{
		{"https://client.example.com/oauth/client.json", false, true},
		{"https://client.example.com", false, false},
		{"https://client.example.com/", false, false},
		{"http://client.example.com/c.json", false, false},
		{"http://127.0.0.1:9/c.json", false, false},
		{"http://127.0.0.1:9/c.json", true, true},
		{"http://client.example.com/c.json", true, false},
		{"https://u:p@client.example.com/c.json", false, false},
		{"https://client.example.com/c.json#x", false, false},
		{"https://client.example.com/a/../c.json", false, false},
		{"file:///etc/passwd", false, false},
		{"client-123", false, false},
	}
	for _, tt := range tests {
		err := CheckClientIDURL(tt.url, tt.allowLoopback)
		if (err == nil) != tt.ok {
			t.Errorf("CheckClientIDURL(%q, %v) = %v, want ok %v", tt.url, tt.allowLoopback, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrClientIDURL) {
			t.Errorf("CheckClientIDURL(%q) error %v does not wrap ErrClientIDURL", tt.url, err)
		}
	}
}

func TestPublicIP(t *testing.T) {
	tests := map[string]bool{
		"8.8.8.8": true, "2606:4700::1111": true,
		"127.0.0.1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false,
		"169.254.169.254": false, "100.64.0.1": false, "0.0.0.0": false, "0.1.2.3": false,
		"::1": false, "fe80::1": false, "fc00::1": false, "224.0.0.1": false, "::": false,
		"::ffff:127.0.0.1": false, "::ffff:169.254.169.254": false,
	}
	for s, want := range tests {
		if got := PublicIP(net.ParseIP(s)); got != want {
			t.Errorf("PublicIP(%s) = %v, want %v", s, got, want)
		}
	}
}

// docServer serves body at /client.json, with the client_id set to its
// own URL when body contains CLIENT_ID.
func docServer(t *testing.T, status int, body string) (*httptest.Server, string) {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	id := srv.URL + "/client.json"
	mux.HandleFunc("/client.json", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		_, _ = w.Write([]byte(strings.ReplaceAll(body, "CLIENT_ID", id)))
	})
	mux.HandleFunc("/elsewhere", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/client.json", http.StatusFound)
	})
	return srv, id
}

func TestFetch(t *testing.T) {
	good := `{"client_id":"CLIENT_ID","client_name":"Test","redirect_uris":["http://127.0.0.1:1/cb"],"token_endpoint_auth_method":"none"}`
	t.Run("good", func(t *testing.T) {
		_, id := docServer(t, 200, good)
		m, err := NewFetcher(&FetcherOptions{AllowLoopback: true}).Fetch(context.Background(), id)
		if err != nil || m.ClientName != "Test" || m.ClientID != id {
			t.Fatalf("Fetch = %+v, %v", m, err)
		}
	})
	refused := []struct {
		name, body string
		status     int
		maxBytes   int64
	}{
		{"client_id differs", `{"client_id":"https://other.example.com/c.json","redirect_uris":["https://x/cb"]}`, 200, 0},
		{"no redirect uris", `{"client_id":"CLIENT_ID"}`, 200, 0},
		{"redirect with fragment", `{"client_id":"CLIENT_ID","redirect_uris":["https://x/cb#f"]}`, 200, 0},
		{"secret auth method", `{"client_id":"CLIENT_ID","redirect_uris":["https://x/cb"],"token_endpoint_auth_method":"client_secret_basic"}`, 200, 0},
		{"not json", `<html>`, 200, 0},
		{"status 404", good, 404, 0},
		{"too large", good, 200, 20},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			_, id := docServer(t, tt.status, tt.body)
			_, err := NewFetcher(&FetcherOptions{AllowLoopback: true, MaxBytes: tt.maxBytes}).Fetch(context.Background(), id)
			if !errors.Is(err, ErrClientIDURL) {
				t.Fatalf("Fetch = %v, want an ErrClientIDURL refusal", err)
			}
		})
	}
}

// TestFetchSSRF is the attack test: a client_id naming an internal
// address, or redirecting, is not fetched.
func TestFetchSSRF(t *testing.T) {
	good := `{"client_id":"CLIENT_ID","client_name":"Test","redirect_uris":["http://127.0.0.1:1/cb"]}`
	srv, _ := docServer(t, 200, good)
	t.Run("redirect not followed", func(t *testing.T) {
		_, err := NewFetcher(&FetcherOptions{AllowLoopback: true}).Fetch(context.Background(), srv.URL+"/elsewhere")
		if !errors.Is(err, ErrClientIDURL) || !strings.Contains(err.Error(), "redirects are not followed") {
			t.Fatalf("Fetch of a redirecting URL = %v, want refused for the redirect", err)
		}
	})
	t.Run("loopback https refused at dial", func(t *testing.T) {
		// https passes the URL check; the dialer must still refuse the
		// loopback address it resolves to.
		tls := httptest.NewTLSServer(http.NotFoundHandler())
		defer tls.Close()
		_, err := NewFetcher(nil).Fetch(context.Background(), tls.URL+"/client.json")
		if !errors.Is(err, ErrClientIDURL) || !strings.Contains(err.Error(), "not a public address") {
			t.Fatalf("Fetch of %s = %v, want refused as not public", tls.URL, err)
		}
	})
	t.Run("localhost name refused at dial", func(t *testing.T) {
		port := strings.TrimPrefix(srv.URL, "http://127.0.0.1:")
		_, err := NewFetcher(nil).Fetch(context.Background(), "https://localhost:"+port+"/client.json")
		if !errors.Is(err, ErrClientIDURL) || !strings.Contains(err.Error(), "not a public address") {
			t.Fatalf("Fetch via localhost = %v, want refused as not public", err)
		}
	})
}
