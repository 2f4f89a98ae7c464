package web_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// hydraBin is where .ci/hydra-install puts Ory Hydra, the real OpenID
// provider the sign-in tests run against.
func hydraBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("SWITCHBOARD_HYDRA_BIN")
	if bin == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatal(err)
		}
		bin = filepath.Join(home, ".cache", "switchboard", "hydra-v2.3.0", "hydra")
	}
	if _, err := os.Stat(bin); err != nil {
		// .ci/run builds Hydra before the tests, so in CI a missing binary
		// is a failure, never a silently skipped sign-in suite.
		if os.Getenv("CI") != "" {
			t.Fatalf("Ory Hydra is missing at %s; CI builds it with .ci/hydra-install", bin)
		}
		t.Skipf("Ory Hydra is not installed at %s: run .ci/hydra-install to build it", bin)
	}
	return bin
}

// hydra is a running Ory Hydra on loopback ports chosen at test time.
type hydra struct {
	Issuer, Admin string
}

// freePort returns a loopback port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startHydra runs Hydra on a throwaway SQLite file, with loginURL and
// consentURL as its login and consent provider (the identity provider's
// side, which the test plays). It stops when the test ends.
func startHydra(t *testing.T, loginURL, consentURL string) hydra {
	t.Helper()
	bin := hydraBin(t)
	dir := t.TempDir()
	pub, adm := freePort(t), freePort(t)
	h := hydra{Issuer: fmt.Sprintf("http://127.0.0.1:%d/", pub), Admin: fmt.Sprintf("http://127.0.0.1:%d", adm)}
	env := append(os.Environ(),
		"DSN=sqlite://"+filepath.Join(dir, "hydra.sqlite")+"?_fk=true",
		"SECRETS_SYSTEM=switchboard-test-system-secret",
		"URLS_SELF_ISSUER="+h.Issuer,
		"URLS_LOGIN="+loginURL,
		"URLS_CONSENT="+consentURL,
		fmt.Sprintf("SERVE_PUBLIC_PORT=%d", pub), "SERVE_PUBLIC_HOST=127.0.0.1",
		fmt.Sprintf("SERVE_ADMIN_PORT=%d", adm), "SERVE_ADMIN_HOST=127.0.0.1",
		"LOG_LEVEL=warn",
	)
	mig := exec.CommandContext(t.Context(), bin, "migrate", "sql", "up", "-e", "--yes")
	mig.Env = env
	if out, err := mig.CombinedOutput(); err != nil {
		t.Fatalf("hydra migrate: %v\n%s", err, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv := exec.CommandContext(ctx, bin, "serve", "all", "--dev")
	srv.Env = env
	logf, err := os.Create(filepath.Join(dir, "hydra.log"))
	if err != nil {
		t.Fatal(err)
	}
	srv.Stdout, srv.Stderr = logf, logf
	if err := srv.Start(); err != nil {
		t.Fatalf("starting hydra: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Wait() }()
	t.Cleanup(func() {
		cancel()
		<-done
		logf.Close()
	})
	// Wait until the public port answers discovery for this issuer, Hydra
	// exits, or a minute passes (a bound on start-up, not an assertion).
	giveUp := time.After(time.Minute)
	for {
		select {
		case err := <-done:
			log, _ := os.ReadFile(logf.Name())
			t.Fatalf("hydra exited: %v\n%s", err, log)
		case <-giveUp:
			log, _ := os.ReadFile(logf.Name())
			t.Fatalf("hydra served no discovery for %s within a minute: %v\n%s", h.Issuer, discovery(t.Context(), h.Issuer), log)
		case <-time.After(100 * time.Millisecond):
		}
		if discovery(t.Context(), h.Issuer) == nil {
			return h
		}
	}
}

func discovery(ctx context.Context, issuer string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, issuer+".well-known/openid-configuration", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var doc struct {
		Issuer string `json:"issuer"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		return err
	}
	if doc.Issuer != issuer {
		return errors.New("discovery names issuer " + doc.Issuer)
	}
	return nil
}

// TestHydraServesDiscovery checks the installed provider: started as the
// sign-in tests start it, it serves OpenID discovery for its issuer.
func TestHydraServesDiscovery(t *testing.T) {
	h := startHydra(t, "http://127.0.0.1:1/login", "http://127.0.0.1:1/consent")
	if err := discovery(t.Context(), h.Issuer); err != nil {
		t.Fatal(err)
	}
}
