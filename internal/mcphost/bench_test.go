//go:build unix

package mcphost_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/observe"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// The benchmarks compare a tool call through the Pool with a bare go-sdk
// client and with the floor client (floor_test.go) on the same server, so
// the differences are what mcphost and what go-sdk add. docs/BENCHMARKS.md has the figures and the commands.

// benchCallers is the number of concurrent callers in the parallel runs.
const benchCallers = 16

// benchServer is one server to benchmark against: how to start it as a
// pool member and as a floor client, and which echo call to make.
type benchServer struct {
	cfg  mcphost.ServerConfig
	tool string
	args json.RawMessage
}

func goTestBenchServer(b *testing.B) benchServer {
	return benchServer{
		cfg:  mcptest.StdioServer(b, "gotest"),
		tool: "echo",
		args: json.RawMessage(`{"text":"hello"}`),
	}
}

func everythingBenchServer(b *testing.B) benchServer {
	p := requireNPM(b, everythingPkg)
	return benchServer{
		cfg:  mcphost.ServerConfig{Name: "everything", Command: p.node, Args: []string{p.everythingScript(), "stdio"}},
		tool: "echo",
		args: json.RawMessage(`{"message":"hello"}`),
	}
}

func benchOptions() *mcphost.Options {
	return &mcphost.Options{ConnectTimeout: 30 * time.Second, PingInterval: -1}
}

// BenchmarkToolCall measures one tools/call round trip, sequentially and
// with 16 concurrent callers, through the Pool and through the floor client.
func BenchmarkToolCall(b *testing.B) {
	for _, srv := range []struct {
		name string
		make func(*testing.B) benchServer
	}{
		{"gotest", goTestBenchServer},
		{"everything", everythingBenchServer},
	} {
		b.Run(srv.name, func(b *testing.B) {
			bs := srv.make(b)
			b.Run("pool", func(b *testing.B) { benchPool(b, bs, false) })
			b.Run("pool-sdk", func(b *testing.B) { benchPool(b, bs, true) })
			b.Run("gosdk", func(b *testing.B) { benchGoSDK(b, bs) })
			b.Run("floor", func(b *testing.B) { benchFloor(b, bs) })
		})
	}
}

// benchPool calls through the Pool; with viaSDK, through the go-sdk session
// on mcphost's own stdio transport instead of its direct tools/call path.
func benchPool(b *testing.B, bs benchServer, viaSDK bool) {
	pool := mcphost.NewPool([]mcphost.ServerConfig{bs.cfg}, benchOptions())
	b.Cleanup(func() { pool.Close() })
	pool.Start(b.Context())
	if st := pool.Status()[0]; st.State != mcphost.StateReady {
		b.Fatalf("%s is %s: %s", st.Name, st.State, st.LastError)
	}
	var tool tools.Tool
	for _, t := range pool.Tools() {
		if t.Info().Name == bs.tool {
			tool = t
		}
	}
	if tool == nil {
		b.Fatalf("no tool %q", bs.tool)
	}
	req := &tools.CallRequest{Arguments: bs.args}
	callTool := tool.Call
	if viaSDK {
		callTool = mcphost.CallThroughSDK(tool)
	}
	call := func(ctx context.Context) error {
		res, err := callTool(ctx, req)
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error: %s", res.Text())
		}
		return err
	}
	runCalls(b, call)
}

// benchGoSDK calls through a bare go-sdk client session, to split what
// mcphost adds from what the SDK costs.
func benchGoSDK(b *testing.B, bs benchServer) {
	cmd := exec.Command(bs.cfg.Command, bs.cfg.Args...)
	cmd.Env = os.Environ()
	for k, v := range bs.cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "switchboard-bench", Version: "0"}, nil)
	cs, err := client.Connect(b.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	params := &mcp.CallToolParams{Name: bs.tool, Arguments: bs.args}
	call := func(ctx context.Context) error {
		res, err := cs.CallTool(ctx, params)
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error")
		}
		return err
	}
	runCalls(b, call)
}

func benchFloor(b *testing.B, bs benchServer) {
	var env []string
	for k, v := range bs.cfg.Env {
		env = append(env, k+"="+v)
	}
	c, err := startFloorClient(b.Context(), env, bs.cfg.Command, bs.cfg.Args...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.close() })
	call := func(ctx context.Context) error {
		_, err := c.callTool(ctx, bs.tool, bs.args)
		return err
	}
	runCalls(b, call)
}

// runCalls runs call sequentially ("seq") and from 16 goroutines ("par16"),
// and reports calls per second and the client's CPU time per call besides
// ns/op. On a shared machine the wall time swings with other people's load;
// the CPU this process spent per call is the steadier measure of what the
// client side costs (the server's CPU is not in it).
func runCalls(b *testing.B, call func(context.Context) error) {
	ctx := context.Background()
	b.Run("seq", func(b *testing.B) {
		b.ReportAllocs()
		cpu0 := observe.ProcessCPU()
		for b.Loop() {
			if err := call(ctx); err != nil {
				b.Fatal(err)
			}
		}
		reportCalls(b, cpu0)
	})
	b.Run(fmt.Sprintf("par%d", benchCallers), func(b *testing.B) {
		b.ReportAllocs()
		// RunParallel starts parallelism*GOMAXPROCS goroutines.
		b.SetParallelism(max(1, benchCallers/runtime.GOMAXPROCS(0)))
		cpu0 := observe.ProcessCPU()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := call(ctx); err != nil {
					b.Error(err)
					return
				}
			}
		})
		reportCalls(b, cpu0)
	})
}

func reportCalls(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
	b.ReportMetric(float64((observe.ProcessCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
}

// BenchmarkConnect measures Start until every server is ready (spawn,
// handshake, first tools/list) for 1 and 20 Go test servers, and for one
// server-everything. Close is not timed.
func BenchmarkConnect(b *testing.B) {
	for _, n := range []int{1, 20} {
		b.Run(fmt.Sprintf("gotest/%d", n), func(b *testing.B) {
			cfgs := make([]mcphost.ServerConfig, n)
			for i := range cfgs {
				cfgs[i] = mcptest.StdioServer(b, fmt.Sprintf("s%02d", i))
			}
			benchConnect(b, cfgs)
		})
	}
	b.Run("everything/1", func(b *testing.B) {
		benchConnect(b, []mcphost.ServerConfig{everythingBenchServer(b).cfg})
	})
}

func benchConnect(b *testing.B, cfgs []mcphost.ServerConfig) {
	for range b.N {
		pool := mcphost.NewPool(cfgs, benchOptions())
		pool.Start(b.Context())
		b.StopTimer()
		for _, st := range pool.Status() {
			if st.State != mcphost.StateReady {
				pool.Close()
				b.Fatalf("%s is %s: %s", st.Name, st.State, st.LastError)
			}
		}
		pool.Close()
		b.StartTimer()
	}
}

// BenchmarkPipeRoundTrip is the floor under every stdio call: one line to a
// child process (cat) and back over pipes.
func BenchmarkPipeRoundTrip(b *testing.B) {
	cmd := exec.Command("cat")
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Skipf("starting cat: %v", err)
	}
	b.Cleanup(func() {
		in.Close()
		io.Copy(io.Discard, out)
		cmd.Wait()
	})
	r := bufio.NewReader(out)
	line := []byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")
	for b.Loop() {
		if _, err := in.Write(line); err != nil {
			b.Fatal(err)
		}
		if _, err := r.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPoolVsFloor measures the Pool's tools/call against the floor
// client, each on its own server-everything process, with 16 concurrent
// callers, in interleaved rounds: pool, floor, floor, pool, each for
// segmentTime. One iteration is one round; run it with -benchtime=6x for
// six. On a shared machine the load drifts over a run: interleaving puts
// both clients under the same drift, and the per-round ratio cancels most
// of it. Reported: the medians over every segment of calls per second,
// bytes and allocations per call (of the whole process, which does nothing
// else meanwhile) and client CPU per call, and the median per-round ratio
// pool/floor of calls per second. Each client first runs one unmeasured
// segment, to warm its server up.
func BenchmarkPoolVsFloor(b *testing.B) {
	bs := everythingBenchServer(b)
	pool := mcphost.NewPool([]mcphost.ServerConfig{bs.cfg}, benchOptions())
	b.Cleanup(func() { pool.Close() })
	pool.Start(b.Context())
	var tool tools.Tool
	for _, t := range pool.Tools() {
		if t.Info().Name == bs.tool {
			tool = t
		}
	}
	if tool == nil {
		b.Fatalf("no tool %q; status %+v", bs.tool, pool.Status())
	}
	floor, err := startFloorClient(b.Context(), nil, bs.cfg.Command, bs.cfg.Args...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { floor.close() })
	req := &tools.CallRequest{Arguments: bs.args}
	clients := map[string]func(context.Context) error{
		"pool": func(ctx context.Context) error {
			res, err := tool.Call(ctx, req)
			if err == nil && res.IsError {
				err = fmt.Errorf("tool error: %s", res.Text())
			}
			return err
		},
		"floor": func(ctx context.Context) error {
			_, err := floor.callTool(ctx, bs.tool, bs.args)
			return err
		},
	}
	// Node compiles the server's hot paths during the first thousands of
	// calls: warm both servers up before measuring.
	measure(b, clients["pool"])
	measure(b, clients["floor"])
	samples := map[string][]segment{}
	var ratios []float64
	for b.Loop() {
		var round [4]segment
		for i, name := range []string{"pool", "floor", "floor", "pool"} {
			round[i] = measure(b, clients[name])
			samples[name] = append(samples[name], round[i])
		}
		r := (round[0].callsPerSec + round[3].callsPerSec) / (round[1].callsPerSec + round[2].callsPerSec)
		ratios = append(ratios, r)
		b.Logf("round %d: pool %.0f, floor %.0f, floor %.0f, pool %.0f calls/s; ratio %.2f",
			len(ratios), round[0].callsPerSec, round[1].callsPerSec, round[2].callsPerSec, round[3].callsPerSec, r)
	}
	for _, name := range []string{"pool", "floor"} {
		s := samples[name]
		b.ReportMetric(median(s, func(x segment) float64 { return x.callsPerSec }), name+"-calls/s")
		b.ReportMetric(median(s, func(x segment) float64 { return x.cpuMicros }), name+"-cpu-µs/call")
		b.ReportMetric(median(s, func(x segment) float64 { return x.bytes }), name+"-B/call")
		b.ReportMetric(median(s, func(x segment) float64 { return x.allocs }), name+"-allocs/call")
	}
	b.ReportMetric(median(ratios, func(x float64) float64 { return x }), "pool/floor")
}

// segmentTime is how long each client runs in a round of BenchmarkPoolVsFloor.
const segmentTime = time.Second

// segment is what one client did in one segment of a round.
type segment struct {
	callsPerSec, cpuMicros, bytes, allocs float64
}

// measure runs call from benchCallers goroutines for segmentTime.
func measure(b *testing.B, call func(context.Context) error) segment {
	ctx, cancel := context.WithTimeout(b.Context(), segmentTime)
	defer cancel()
	var calls atomic.Int64
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	cpu0 := observe.ProcessCPU()
	start := time.Now()
	var wg sync.WaitGroup
	for range benchCallers {
		wg.Go(func() {
			for ctx.Err() == nil {
				if err := call(context.Background()); err != nil {
					b.Error(err)
					return
				}
				calls.Add(1)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := observe.ProcessCPU() - cpu0
	runtime.ReadMemStats(&after)
	n := float64(calls.Load())
	return segment{
		callsPerSec: n / elapsed.Seconds(),
		cpuMicros:   float64(cpu.Microseconds()) / n,
		bytes:       float64(after.TotalAlloc-before.TotalAlloc) / n,
		allocs:      float64(after.Mallocs-before.Mallocs) / n,
	}
}

func median[T any](xs []T, f func(T) float64) float64 {
	v := make([]float64, len(xs))
	for i, x := range xs {
		v[i] = f(x)
	}
	slices.Sort(v)
	if len(v) == 0 {
		return 0
	}
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}
