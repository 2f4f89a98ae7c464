package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/sandbox"
)

// Conn is Switchboard's own stdio transport: one child process, its
// stdin and stdout as newline-delimited JSON-RPC, read by one goroutine
// through a pooled buffer.
//
// It carries two kinds of traffic. The go-sdk ClientSession runs on it as an
// [mcp.Connection] (handshake, listing, ping, list_changed, the server's
// requests for roots, sampling and elicitation). tools/call, its progress
// notifications and its cancellation take a shorter path (calls.go): the
// reader decodes those responses straight into the catalogue's types and
// hands them to the waiting caller, without the SDK's per-message decoding.
// docs/ARCHITECTURE.md says why, with the measurements.
//
// Lines on stdout that are not JSON-RPC (a banner, a stray console.log) are
// skipped and reported to noise, as the TypeScript and Python SDK clients
// skip them, instead of ending the session. A message longer than the line
// buffer is read as a stream, up to maxMessage bytes.
type Conn struct {
	cmd        *exec.Cmd
	pg         *ProcGroup
	stdin      *os.File // our end of the server's stdin
	stdout     *os.File // our end of the server's stdout
	terminate  time.Duration
	maxMessage int64
	noiseFn    func(line []byte) // called on the reader goroutine; must not block
	noiseLines atomic.Int64      // lines skipped because they are not JSON-RPC
	bufs       *Buffers
	log        *slog.Logger

	wmu sync.Mutex // serialises whole messages on stdin

	calls    callTable
	sdkCalls sdkRequests // the SDK session's requests awaiting an answer
	// meta is the per-request _meta the SDK session sends under protocol
	// 2026-07-28 (protocol version, client info and capabilities), learned
	// from its first request so that the host's own calls carry exactly the
	// same; nil until then.
	meta atomic.Pointer[[]byte]

	// toSDK carries the messages for the SDK session, in order. Buffer 16:
	// the SDK's read loop drains it at once (its handlers run elsewhere),
	// so a full buffer only briefly holds up the reader. The reader closes
	// it when it ends, after setting readErr.
	toSDK   chan []byte
	readErr error
	queue   []jsonrpc.Message // the rest of a batch; only Read touches it

	exited     chan struct{} // closed once the process has been waited for
	waitErr    error         // set before exited is closed
	readerDone chan struct{}

	closing   chan struct{} // closed when Close begins
	closeOnce sync.Once
	closeErr  error
}

var (
	_ mcp.Connection = (*Conn)(nil)
	_ mcp.Transport  = (*Conn)(nil)
)

// Connect implements [mcp.Transport]: the pipe is already connected, and
// the SDK session it is handed to is its only user.
func (c *Conn) Connect(context.Context) (mcp.Connection, error) { return c, nil }

// noise counts and reports a line that is not JSON-RPC.
func (c *Conn) noise(line []byte) {
	c.noiseLines.Add(1)
	if c.noiseFn != nil {
		c.noiseFn(line)
	}
}

// Options are what a Conn needs besides its command.
type Options struct {
	Terminate  time.Duration     // grace after closing stdin, and after SIGTERM
	MaxMessage int64             // the most read of one message; longer ones are dropped
	Noise      func(line []byte) // called with each line that is not JSON-RPC, on the reader goroutine; must not block
	Buffers    *Buffers          // shared by the connections of one pool; must not be nil
	Log        *slog.Logger      // must not be nil
}

// Start starts cmd (made with [NewProcGroup]) with its stdin and stdout on
// new pipes and begins reading. The returned connection owns the process:
// Close stops it.
func Start(cmd *exec.Cmd, pg *ProcGroup, o Options) (*Conn, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("making the stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("making the stdout pipe: %w", err)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = sandbox.Start(cmd)
	// The child has its own copies now; ours would keep stdout open after
	// the child exits.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	c := &Conn{
		cmd: cmd, pg: pg, stdin: inW, stdout: outR,
		terminate: o.Terminate, maxMessage: o.MaxMessage, noiseFn: o.Noise, bufs: o.Buffers, log: o.Log,
		calls:      callTable{pending: map[uint64]*pendingCall{}},
		sdkCalls:   sdkRequests{ids: map[string]struct{}{}},
		toSDK:      make(chan []byte, 16),
		exited:     make(chan struct{}),
		readerDone: make(chan struct{}),
		closing:    make(chan struct{}),
	}
	c.calls.expired = func(id uint64) { c.cancelCall(id, ErrCallTimeout) }
	go c.wait()
	go c.read()
	return c, nil
}

// PID returns the server's process id.
func (c *Conn) PID() int { return c.pg.PID() }

// ExitState says how the process ended ("exit status 2", "signal:
// killed"), waiting up to d for it to be reaped; "" when it has not ended.
func (c *Conn) ExitState(d time.Duration) string {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.exited:
		if ps := c.cmd.ProcessState; ps != nil {
			return ps.String()
		}
		return "exited"
	case <-t.C:
		return ""
	}
}

// wait reaps the process. When it is gone, what it left in its process
// group (npx leaves node) goes too, so that stdout reaches its end.
func (c *Conn) wait() {
	c.waitErr = c.cmd.Wait()
	close(c.exited)
	c.pg.Kill()
}

// read is the reader goroutine: it dispatches every line until stdout ends.
func (c *Conn) read() {
	buf := c.bufs.getRead()
	lr := newLineReader(c.stdout, buf)
	var err error
	for {
		line, full, e := lr.next()
		if e != nil {
			err = e
			break
		}
		if full {
			c.handle(line, false)
		} else {
			c.handleLong(lr, line)
		}
	}
	c.bufs.putRead(buf)
	c.readErr = err
	c.calls.closeAll(fmt.Errorf("%w: reading the server's stdout: %w", mcp.ErrConnectionClosed, err))
	close(c.toSDK)
	close(c.readerDone)
}

// handle dispatches one complete line. owned reports that line is the
// caller's own copy, which the SDK may keep.
func (c *Conn) handle(line []byte, owned bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if line[0] == '[' {
		elems, ok := splitBatch(line)
		if !ok {
			c.noise(line)
			return
		}
		for _, e := range elems {
			c.handle(e, owned)
		}
		return
	}
	f, ok := scanFrame(line, false)
	if !ok || !f.isJSONRPC() {
		c.noise(line)
		return
	}
	switch {
	case f.isResponse():
		if id, ok := parseCallID(f.id); ok {
			c.deliver(id, line)
			return
		}
		c.sdkCalls.done(f.id)
	case string(f.method) == `"notifications/progress"` && len(f.params) > 0:
		if c.progress(f.params) {
			return
		}
	}
	if !owned {
		line = bytes.Clone(line)
	}
	c.sendSDK(line)
}

// handleLong dispatches a line longer than the read buffer, of which
// prefix is the first part, still unconsumed in lr.
func (c *Conn) handleLong(lr *lineReader, prefix []byte) {
	f, ok := scanFrame(prefix, true)
	if !ok && !bytes.HasPrefix(bytes.TrimSpace(prefix), []byte("[")) {
		c.noise(prefix)
		lr.skipLine()
		return
	}
	if ok && len(f.method) == 0 {
		if id, mine := parseCallID(f.id); mine {
			c.streamResponse(lr, id, true)
			return
		}
		if f.id == nil && c.calls.busy() {
			// A response whose id comes after its body (the TypeScript
			// SDK writes "result" first) while calls of ours wait.
			c.streamResponse(lr, 0, false)
			return
		}
	}
	// A request or notification, or a response for the SDK session: read
	// it whole, up to the cap.
	data, err := lr.readLine(make([]byte, 0, 2*len(prefix)), c.maxMessage)
	if err != nil {
		c.tooLarge(&f)
		return
	}
	c.handle(data, true)
}

// tooLarge deals with a message over the cap that was not read: a request
// of the SDK gets an error response, so that it does not wait in vain.
func (c *Conn) tooLarge(f *frame) {
	msg := fmt.Sprintf("the server's message is larger than the %s limit on one message and was dropped", formatBytes(c.maxMessage))
	if len(f.id) == 0 || len(f.method) > 0 {
		c.log.Warn("dropped a message from the server over the size limit", "limit", c.maxMessage, "method", string(f.method))
		return
	}
	if id, ok := parseCallID(f.id); ok {
		if pc := c.calls.take(id); pc != nil {
			pc.finish(tooLargeResult(c.maxMessage), nil, nil)
		}
		return
	}
	resp := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, f.id, jsonrpc.CodeInternalError, msg)
	c.sdkCalls.done(f.id)
	c.sendSDK(resp)
}

// sendSDK queues a message (which the SDK may keep) for the SDK session.
func (c *Conn) sendSDK(msg []byte) {
	select {
	case c.toSDK <- msg:
	case <-c.closing:
	}
}

// write sends one whole message (ending in a newline).
func (c *Conn) write(p []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.stdin.Write(p)
	return err
}

// Read implements [mcp.Connection] for the SDK session. A message the SDK
// cannot decode is treated like any other line that is not JSON-RPC.
func (c *Conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		if len(c.queue) > 0 {
			m := c.queue[0]
			c.queue = c.queue[1:]
			return m, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closing:
			return nil, io.EOF
		case b, ok := <-c.toSDK:
			if !ok {
				return nil, c.readErr
			}
			msgs, err := decodeForSDK(b)
			if err != nil {
				c.noise(b)
				continue
			}
			c.queue = msgs
		}
	}
}

func decodeForSDK(b []byte) ([]jsonrpc.Message, error) {
	if elems, ok := splitBatch(b); ok {
		out := make([]jsonrpc.Message, 0, len(elems))
		for _, e := range elems {
			m, err := jsonrpc.DecodeMessage(e)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
		return out, nil
	}
	m, err := jsonrpc.DecodeMessage(b)
	if err != nil {
		return nil, err
	}
	return []jsonrpc.Message{m}, nil
}

// Write implements [mcp.Connection].
func (c *Conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	if c.meta.Load() == nil {
		c.learnMeta(msg)
	}
	c.sdkCalls.track(msg)
	return c.write(append(data, '\n'))
}

// sdkRequests is the set of the SDK session's requests that await an
// answer, by raw JSON id. The reader needs it for one decision only: a long
// response whose id comes last may be the SDK's while these are waiting.
type sdkRequests struct {
	mu  sync.Mutex
	ids map[string]struct{} // mu guards ids
}

// track notes an outgoing SDK request, and forgets one the SDK cancels.
func (r *sdkRequests) track(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return
	}
	var id []byte
	switch {
	case req.IsCall():
		id, _ = json.Marshal(req.ID.Raw())
		r.mu.Lock()
		r.ids[string(id)] = struct{}{}
		r.mu.Unlock()
	case req.Method == "notifications/cancelled":
		r.done(objectField(req.Params, "requestId"))
	}
}

// done forgets the request with the raw id.
func (r *sdkRequests) done(id []byte) {
	r.mu.Lock()
	delete(r.ids, string(id))
	r.mu.Unlock()
}

// busy reports whether SDK requests await an answer.
func (r *sdkRequests) busy() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.ids) > 0
}

// Keys of the per-request _meta of protocol 2026-07-28 (SEP-2575).
var sessionMetaKeys = []string{
	"io.modelcontextprotocol/protocolVersion",
	"io.modelcontextprotocol/clientInfo",
	"io.modelcontextprotocol/clientCapabilities",
}

// learnMeta keeps the session's part of the _meta of an SDK request, when
// it has one.
func (c *Conn) learnMeta(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() || len(req.Params) == 0 {
		return
	}
	m := objectField(req.Params, "_meta")
	if m == nil {
		return
	}
	var b []byte
	for _, k := range sessionMetaKeys {
		v := objectField(m, k)
		if v == nil {
			return
		}
		if b != nil {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, k...)
		b = append(b, `":`...)
		b = append(b, v...)
	}
	c.meta.Store(&b)
}

// Meta returns the session's _meta members that the host's own calls carry
// under protocol 2026-07-28, learned from the SDK session's first request
// that had them; ok is false until then.
func (c *Conn) Meta() (meta []byte, ok bool) {
	if m := c.meta.Load(); m != nil {
		return *m, true
	}
	return nil, false
}

// CancelCalls fails the calls waiting on the direct path now, with an error
// wrapping [mcp.ErrConnectionClosed], and every later one. The SDK session's
// requests are not affected.
func (c *Conn) CancelCalls() { c.calls.closeAll(errClosing) }

// HandshakeError adds a hint to an error of a misbehaving server's
// handshake. Call it after Close, when the process has been waited for.
func (c *Conn) HandshakeError(err error) error {
	if ps := c.cmd.ProcessState; ps != nil && ps.Exited() && ps.ExitCode() != 0 {
		return fmt.Errorf("server exited during the handshake with %v (see its stderr): %w", ps, err)
	}
	if n := c.noiseLines.Load(); n > 0 {
		return fmt.Errorf("handshake failed after the server wrote %d lines to stdout that are not JSON-RPC (skipped; logs belong on stderr; see the stderr tail, where they are marked [stdout]): %w", n, err)
	}
	return err
}

// SessionID implements [mcp.Connection]; stdio has no session id.
func (c *Conn) SessionID() string { return "" }

// errClosing fails the calls still waiting when the connection closes.
var errClosing = fmt.Errorf("%w: the connection to the server is closing", mcp.ErrConnectionClosed)

// Close implements [mcp.Connection]: it fails the calls in flight, then
// stops the server the way the MCP specification asks of a stdio client
// (close its stdin, wait; SIGTERM, wait; SIGKILL), kills what is left of
// its process group, and waits for the reader. Each wait is the server's
// ShutdownTimeout. Close is idempotent and safe for concurrent use; it
// returns once the process is gone.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closing)
		c.calls.closeAll(errClosing)
		// Not under wmu: a write blocked on a full pipe must not keep
		// stdin open; closing the file makes that write fail.
		c.stdin.Close()
		if !c.waitExit() {
			_ = c.cmd.Process.Signal(syscall.SIGTERM)
			if !c.waitExit() {
				_ = c.cmd.Process.Kill()
				c.pg.Kill()
				if !c.waitExit() {
					c.closeErr = fmt.Errorf("server process %d did not exit after SIGKILL", c.PID())
				}
			}
		}
		c.pg.Kill()
		// A straggler the group kill missed (it left the group) must not
		// keep the reader waiting for an end of stdout.
		c.stdout.Close()
		<-c.readerDone
	})
	return c.closeErr
}

func (c *Conn) waitExit() bool {
	t := time.NewTimer(c.terminate)
	defer t.Stop()
	select {
	case <-c.exited:
		return true
	case <-t.C:
		return false
	}
}

// Buffers recycles the transport's buffers across connections and calls.
// mcphost's Pool owns one, shared by its servers. The zero value is ready.
type Buffers struct {
	read  sync.Pool // *[]byte of ReadBufSize
	write sync.Pool // *bytes.Buffer
}

// ReadBufSize is the line buffer of each connection: messages up to this
// size are decoded in place, longer ones as a stream.
const ReadBufSize = 64 << 10

// maxPooledWrite keeps buffers that grew for a large request out of the pool.
const maxPooledWrite = 64 << 10

func (p *Buffers) getRead() []byte {
	if b, ok := p.read.Get().(*[]byte); ok {
		return *b
	}
	return make([]byte, ReadBufSize)
}

func (p *Buffers) putRead(b []byte) { p.read.Put(&b) }

func (p *Buffers) getWrite() *bytes.Buffer {
	if b, ok := p.write.Get().(*bytes.Buffer); ok {
		b.Reset()
		return b
	}
	return bytes.NewBuffer(make([]byte, 0, 1024))
}

func (p *Buffers) putWrite(b *bytes.Buffer) {
	if b.Cap() <= maxPooledWrite {
		p.write.Put(b)
	}
}

// formatBytes prints a byte count for people: 16 MiB, 512 KiB, 100 bytes.
func formatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}
