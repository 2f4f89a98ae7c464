package cli

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPServesTheCatalogueOverStdio runs `switchboard mcp` on pipes and
// talks to it with the go-sdk client, as Claude Desktop would.
func TestMCPServesTheCatalogueOverStdio(t *testing.T) {
	dir := t.TempDir()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- Run(context.Background(), &Env{
			Args: []string{"mcp"}, Stdin: inR, Stdout: outW, Stderr: &errb,
			Getenv: func(string) string { return "" }, Cwd: dir,
		})
		outW.Close()
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connecting: %v (stderr: %s)", err, errb.String())
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	if !strings.Contains(strings.Join(names, " "), "calculator") {
		t.Errorf("tools = %v, want calculator among them", names)
	}
	call, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "calculator", Arguments: map[string]any{"expression": "6*7"}})
	if err != nil {
		t.Fatal(err)
	}
	if txt := call.Content[0].(*mcp.TextContent).Text; txt != "42" || call.IsError {
		t.Errorf("calculator = %q (isError %v), want 42", txt, call.IsError)
	}
	// write_file needs approval; this client cannot be asked, so it is refused.
	call, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "write_file", Arguments: map[string]any{"path": "x.txt", "content": "x"}})
	if err != nil || !call.IsError {
		t.Errorf("write_file without a way to approve: err %v, isError %v; want a refusal", err, call != nil && call.IsError)
	}
	cs.Close()
	inW.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d, stderr:\n%s", code, errb.String())
		}
	case <-ctx.Done():
		t.Fatal("switchboard mcp did not exit after stdin closed")
	}

	r := run(t, dir, nil, "audit", "--json")
	if !strings.Contains(r.stdout, `"tool":"calculator"`) || !strings.Contains(r.stdout, `"tool":"write_file"`) {
		t.Errorf("audit lacks the gateway's calls:\n%s", r.stdout)
	}
}
