package security

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// freeLoopbackAddr returns a loopback address with a port free a moment
// ago, for a listener the command opens itself.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestHTTPProfilesRefuseRebinding: `serve --pprof` without users answers
// without a key, as the API does on loopback. A web page whose name the
// attacker rebinds to 127.0.0.1 makes the person's browser send its own
// name as Host (and its origin as Origin): the profiles, with the command
// line and memory, must not answer it, as the API does not. Loopback names
// still get them; with users, a foreign Host is refused before the key is
// even looked at.
func TestHTTPProfilesRefuseRebinding(t *testing.T) {
	dir := project(t, "")
	addr := freeLoopbackAddr(t)
	s := serve(t, dir, "--pprof", addr)
	_, port, _ := net.SplitHostPort(addr)
	get := func(host, key string, headers map[string]string) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+addr+"/debug/pprof/cmdline", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("GET profiles as %s: %v", host, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	eventually(t, "the profile listener", func() bool {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	// The command line profile of this process names the test binary's
	// flags: what an attacker's page would read.
	if code, body := get(addr, "", nil); code != http.StatusOK || !strings.Contains(body, "-test.") {
		t.Fatalf("profiles on 127.0.0.1 without users = %d %q; want 200 with the command line", code, body)
	}
	if code, _ := get("localhost:"+port, "", nil); code != http.StatusOK {
		t.Errorf("profiles on localhost without users = %d; want 200", code)
	}
	// The API itself refuses the rebound name: the profiles must too.
	if code, _ := s.call(t, http.MethodGet, "/api/v1/tools", "", nil); code != http.StatusOK {
		t.Fatalf("API on loopback without users = %d", code)
	}
	attacks := []struct {
		name, host string
		headers    map[string]string
	}{
		{"rebound name", "rebind.attacker.example:" + port, nil},
		{"rebound name with its origin", "rebind.attacker.example:" + port, map[string]string{"Origin": "http://rebind.attacker.example:" + port}},
		{"foreign origin on a loopback host", addr, map[string]string{"Origin": "http://attacker.example"}},
		{"cross-site fetch", addr, map[string]string{"Sec-Fetch-Site": "cross-site"}},
	}
	for _, a := range attacks {
		code, body := get(a.host, "", a.headers)
		if code != http.StatusForbidden || strings.Contains(body, "-test.") || !strings.Contains(body, "not") && !strings.Contains(body, "cross-site") {
			t.Errorf("%s: %d %q; want 403 saying why, without the profile", a.name, code, body)
		}
	}
	// With users, an admin's key does not make a foreign Host acceptable.
	admin := addUser(t, dir, "ada", "--admin")
	if code, _ := get("rebind.attacker.example:"+port, admin, nil); code != http.StatusForbidden {
		t.Errorf("rebound name with an admin's key = %d; want 403", code)
	}
	if code, _ := get(addr, admin, nil); code != http.StatusOK {
		t.Errorf("admin's key on 127.0.0.1 = %d; want 200", code)
	}
}
