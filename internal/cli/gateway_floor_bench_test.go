package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"testing"
)

// envBareGateway makes the test binary run as the bare HTTP gateway of
// BenchmarkGatewayComparison: it listens on the address the variable holds
// and runs the server given as its arguments.
const envBareGateway = "SWITCHBOARD_BENCH_BARE_GATEWAY"

// maybeServeBareGateway runs the bare HTTP gateway and exits, when this
// process was started as one.
func maybeServeBareGateway() {
	addr := os.Getenv(envBareGateway)
	if addr == "" {
		return
	}
	f, err := startStdioFloor(os.Args[1], os.Args[2:]...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// The benchmark stops it with an interrupt, which a shell may have
	// set to be ignored in a background job.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	go func() {
		<-stop
		f.close()
		os.Exit(0)
	}()
	err = http.ListenAndServe(addr, bareGateway(f))
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

// bareGateway is the least an HTTP gateway in front of a stdio server
// does: each POST's request goes to the server under an id of the
// gateway's, and its result comes back as a JSON response under the
// client's id. It has no sessions, keys, limits or audit trail, and
// answers initialize itself. Nothing built on net/http and encoding/json
// serves tools/call over HTTP for less, so it is the floor of the HTTP
// setups, as the bare pipe is the floor of them all.
func bareGateway(f *stdioFloor) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if req.Method == "initialize" {
			w.Header().Set("Mcp-Session-Id", "bare")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"bare","version":"1"}}}`, req.ID)
			return
		}
		rest := `"method":` + strconv.Quote(req.Method)
		if req.Params != nil {
			rest += `,"params":` + string(req.Params)
		}
		line, err := f.send(rest)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		var resp struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(line, &resp); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, resp.Result)
	})
}

// startBareGateway runs the bare HTTP gateway (this binary) over
// server-everything as its own process.
func startBareGateway(b *testing.B, node, everything string) (*httpClient, int) {
	addr := freeAddr(b)
	cmd := exec.Command(os.Args[0], node, everything, "stdio")
	cmd.Env = append(os.Environ(), envBareGateway+"="+addr)
	cmd.Stderr = os.Stderr
	return startGateway(b, cmd, "http://"+addr+"/mcp", "echo", "")
}
