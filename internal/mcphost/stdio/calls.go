package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// The host's own tools/call path on a Conn. Requests carry string ids
// "sb-<n>", which never collide with the SDK session's numeric ids, and the
// same string as their progress token. The reader hands each response and
// progress notification to the waiting call in the order the server wrote
// them, so every progress report arrives before the result it preceded.

// callTable is the set of tools/call requests sent and not yet answered.
type callTable struct {
	mu      sync.Mutex
	next    uint64
	pending map[uint64]*pendingCall // mu guards next, pending, err, expiry and armedFor
	err     error                   // set when the connection ends; later calls fail with it

	// expiry ends the calls past their deadline. It is one timer for the
	// connection, armed for the earliest deadline while calls wait, not
	// one per call: on the gateway's hot path a timer and a context a
	// call cost more than decoding its answer.
	expiry   *time.Timer
	armedFor time.Time // zero while expiry is not armed
	// expired is told each call expiry ended, outside mu, to cancel it
	// on the wire.
	expired func(id uint64)
}

// pendingCall is one tools/call waiting for its response.
type pendingCall struct {
	tool string
	out  *tools.OutputStore

	deadline time.Time // zero for none

	done   chan struct{} // closed by finish; then res, rpcErr and err are set
	res    *tools.Result
	rpcErr *jsonrpc.Error
	err    error

	pmu      sync.Mutex
	progress func(tools.Progress) // pmu guards progress; nil once the call returned
}

func (t *callTable) add(pc *pendingCall) (uint64, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return 0, t.err
	}
	t.next++
	t.pending[t.next] = pc
	if !pc.deadline.IsZero() && (t.armedFor.IsZero() || pc.deadline.Before(t.armedFor)) {
		t.arm(pc.deadline)
	}
	return t.next, nil
}

// arm sets expiry to fire at deadline. mu is held.
func (t *callTable) arm(deadline time.Time) {
	t.armedFor = deadline
	d := time.Until(deadline)
	if t.expiry == nil {
		t.expiry = time.AfterFunc(d, t.expire)
		return
	}
	t.expiry.Reset(d)
}

// expire ends the calls whose deadline has passed with ErrCallTimeout and
// arms expiry for the earliest deadline left.
func (t *callTable) expire() {
	now := time.Now()
	var ended map[uint64]*pendingCall
	var next time.Time
	t.mu.Lock()
	for id, pc := range t.pending {
		switch {
		case pc.deadline.IsZero():
		case !pc.deadline.After(now):
			if ended == nil {
				ended = map[uint64]*pendingCall{}
			}
			ended[id] = pc
			delete(t.pending, id)
		case next.IsZero() || pc.deadline.Before(next):
			next = pc.deadline
		}
	}
	t.armedFor = time.Time{}
	if !next.IsZero() && t.err == nil {
		t.arm(next)
	}
	t.mu.Unlock()
	for id, pc := range ended {
		pc.finish(nil, nil, ErrCallTimeout)
		if t.expired != nil {
			t.expired(id)
		}
	}
}

// ErrCallTimeout ends a call whose server did not answer within the
// timeout [Conn.CallTool] was given; the server was told to cancel it.
var ErrCallTimeout = errors.New("the server did not answer in time")

// any returns one of the waiting calls, or nil.
func (t *callTable) any() *pendingCall {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, pc := range t.pending {
		return pc
	}
	return nil
}

// busy reports whether calls are waiting.
func (t *callTable) busy() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.pending) > 0
}

// get returns the call waiting for id, leaving it in the table.
func (t *callTable) get(id uint64) *pendingCall {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.pending[id]
}

// take removes and returns the call waiting for id; whoever takes a call
// finishes it, or gives up on it.
func (t *callTable) take(id uint64) *pendingCall {
	t.mu.Lock()
	defer t.mu.Unlock()
	pc := t.pending[id]
	delete(t.pending, id)
	return pc
}

// closeAll fails every waiting call and every later one with err (the
// first error given wins).
func (t *callTable) closeAll(err error) {
	t.mu.Lock()
	if t.err == nil {
		t.err = err
	}
	pending := t.pending
	t.pending = map[uint64]*pendingCall{}
	if t.expiry != nil {
		t.expiry.Stop()
		t.armedFor = time.Time{}
	}
	t.mu.Unlock()
	for _, pc := range pending {
		pc.finish(nil, nil, err)
	}
}

func (pc *pendingCall) finish(res *tools.Result, rpcErr *jsonrpc.Error, err error) {
	pc.res, pc.rpcErr, pc.err = res, rpcErr, err
	close(pc.done)
}

func (pc *pendingCall) report(p tools.Progress) {
	pc.pmu.Lock()
	defer pc.pmu.Unlock()
	if pc.progress != nil {
		pc.progress(p)
	}
}

func (pc *pendingCall) stopProgress() {
	pc.pmu.Lock()
	pc.progress = nil
	pc.pmu.Unlock()
}

// CallTool sends tools/call for the tool whose name, encoded as a JSON
// string, is nameJSON, and waits for the result. When ctx ends first it
// sends notifications/cancelled and returns ctx's error; when timeout (if
// positive) passes first, it does the same and returns ErrCallTimeout.
// The timeout is the connection's to keep rather than ctx's, so that a
// call costs no timer of its own (callTable.expiry). A JSON-RPC error
// response is returned as a *jsonrpc.Error; a lost connection as an error
// wrapping [mcp.ErrConnectionClosed]. Arguments that are not valid JSON
// give a tool error without a request.
//
// With meta (the session's _meta members under protocol 2026-07-28), a
// result that asks for input first ends in ErrInputRequired: the caller
// then makes the call through the SDK, which answers and retries.
func (c *Conn) CallTool(ctx context.Context, timeout time.Duration, tool string, nameJSON []byte, meta []byte, req *tools.CallRequest) (*tools.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err // do not start what would be cancelled at once
	}
	pc := &pendingCall{tool: tool, done: make(chan struct{})}
	if timeout > 0 {
		pc.deadline = time.Now().Add(timeout)
	}
	var args json.RawMessage
	if req != nil {
		pc.out, pc.progress, args = req.Output, req.Progress, req.Arguments
	}
	id, err := c.calls.add(pc)
	if err != nil {
		return nil, err
	}
	buf := c.bufs.getWrite()
	if err := encodeCall(buf, id, nameJSON, args, pc.progress != nil, meta); err != nil {
		c.bufs.putWrite(buf)
		c.calls.take(id)
		return tools.ErrorResult("arguments are not valid JSON: " + err.Error()), nil //nolint:nilerr // the model should see it
	}
	err = c.write(buf.Bytes())
	c.bufs.putWrite(buf)
	if err != nil {
		c.calls.take(id)
		return nil, fmt.Errorf("%w: writing to the server's stdin: %w", mcp.ErrConnectionClosed, err)
	}
	select {
	case <-pc.done:
	case <-ctx.Done():
		if c.calls.take(id) == pc {
			pc.stopProgress()
			c.cancelCall(id, ctx.Err())
			return nil, ctx.Err()
		}
		<-pc.done // the reader took it and is finishing it now
	}
	pc.stopProgress()
	switch {
	case pc.err != nil:
		return nil, pc.err
	case pc.rpcErr != nil:
		return nil, pc.rpcErr
	}
	return pc.res, nil
}

// encodeCall appends the tools/call request to buf. Arguments are
// compacted, which also keeps a pretty-printed argument from breaking the
// newline framing.
func encodeCall(buf *bytes.Buffer, id uint64, nameJSON []byte, args json.RawMessage, progress bool, meta []byte) error {
	b := buf.AvailableBuffer()
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = appendCallID(b, id)
	b = append(b, `,"method":"tools/call","params":{"name":`...)
	b = append(b, nameJSON...)
	b = append(b, `,"arguments":`...)
	buf.Write(b)
	if a := bytes.TrimSpace(args); len(a) == 0 || string(a) == "null" {
		buf.WriteString("{}")
	} else if err := json.Compact(buf, a); err != nil {
		return err
	}
	b = buf.AvailableBuffer()
	if progress || len(meta) > 0 {
		b = append(b, `,"_meta":{`...)
		if progress {
			b = append(b, `"progressToken":`...)
			b = appendCallID(b, id)
			if len(meta) > 0 {
				b = append(b, ',')
			}
		}
		b = append(b, meta...)
		b = append(b, '}')
	}
	b = append(b, "}}\n"...)
	buf.Write(b)
	return nil
}

// cancelCall tells the server that the host gave up on request id.
func (c *Conn) cancelCall(id uint64, cause error) {
	reason, _ := json.Marshal(cause.Error())
	buf := c.bufs.getWrite()
	b := buf.AvailableBuffer()
	b = append(b, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`...)
	b = appendCallID(b, id)
	b = append(b, `,"reason":`...)
	b = append(b, reason...)
	b = append(b, "}}\n"...)
	buf.Write(b)
	_ = c.write(buf.Bytes()) // best effort: a broken pipe ends the session anyway
	c.bufs.putWrite(buf)
}

// deliver hands a complete response to the call waiting for id.
func (c *Conn) deliver(id uint64, msg []byte) {
	pc := c.calls.take(id)
	if pc == nil {
		return // a late answer to a call that was cancelled or timed out
	}
	if res, ok := fastResult(msg); ok {
		pc.finish(res, nil, nil)
		return
	}
	var r wireResponse
	if err := json.Unmarshal(msg, &r); err != nil {
		pc.finish(badResult(err), nil, nil)
		return
	}
	finishResponse(pc, &r)
}

// ErrInputRequired means the server answered with a request for input
// (protocol 2026-07-28, SEP-2322) instead of a result.
var ErrInputRequired = errors.New("the server asks for input before it runs the tool")

func finishResponse(pc *pendingCall, r *wireResponse) {
	switch {
	case r.Error != nil:
		pc.finish(nil, r.Error, nil)
	case r.Result == nil:
		pc.finish(badResult(errors.New("it has neither result nor error")), nil, nil)
	case r.Result.ResultType == "input_required":
		pc.finish(nil, nil, ErrInputRequired)
	default:
		pc.finish(r.Result.toResult(), nil, nil)
	}
}

// streamResponse reads a response longer than the line buffer that is, or
// may be, the answer to one of the host's calls, streaming its long texts
// into that call's output store. known says whether the id came before the
// body, as Go SDK servers write it; the TypeScript SDK writes the result
// first, and then the id is read at the end, and the texts go to the store
// of any waiting call (in practice all calls share the registry's). While
// the SDK session has requests of its own in flight, such a message may be
// the answer to one of those: its bytes are then recorded as they stream
// by, so that it can still go to the SDK whole.
func (c *Conn) streamResponse(lr *lineReader, id uint64, known bool) {
	var pc *pendingCall
	if known {
		pc = c.calls.get(id)
	} else {
		pc = c.calls.any()
	}
	if pc == nil {
		lr.skipLine()
		return
	}
	if !known && c.sdkCalls.busy() {
		lr.record = new(bytes.Buffer)
		defer func() { lr.record = nil }()
	}
	r, texts, err := streamResult(&jstream{lr: lr, limit: c.maxMessage}, pc.out, pc.tool)
	if !known {
		var mine bool
		if id, mine = parseCallID(r.ID); !mine {
			for _, t := range texts {
				t.Discard()
			}
			c.notMine(lr.record, r.ID, err)
			return
		}
	}
	target := c.calls.take(id)
	if target == nil {
		// The caller gave up while the result streamed in.
		for _, t := range texts {
			t.Discard()
		}
		return
	}
	switch {
	case errors.Is(err, errTooLarge):
		target.finish(tooLargeResult(c.maxMessage), nil, nil)
	case err != nil:
		target.finish(badResult(err), nil, nil)
	default:
		finishResponse(target, r)
	}
}

// notMine deals with a streamed response that turned out not to be for
// one of the host's calls: the SDK gets it whole when it was recorded, or
// an error response when it was over the cap.
func (c *Conn) notMine(recorded *bytes.Buffer, id []byte, err error) {
	switch {
	case err == nil && recorded != nil:
		c.handle(recorded.Bytes(), true)
	case errors.Is(err, errTooLarge) && len(id) > 0:
		c.tooLarge(&frame{id: id})
	default:
		c.log.Warn("dropped a long message from the server that answers no waiting request", "id", string(id), logKeyErr, err)
	}
}

// progress routes notifications/progress for one of the host's calls. It
// reports false for a token that is not the host's, which the SDK handles.
func (c *Conn) progress(params []byte) bool {
	if !bytes.Contains(params, []byte(`"`+callIDPrefix)) {
		return false
	}
	var p wireProgress
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	id, ok := parseCallID(p.ProgressToken)
	if !ok {
		return false
	}
	if pc := c.calls.get(id); pc != nil {
		pc.report(tools.Progress{Progress: p.Progress, Total: p.Total, Message: p.Message})
	}
	return true
}

// callIDPrefix starts the ids (and progress tokens) of the host's own calls.
const callIDPrefix = "sb-"

func appendCallID(b []byte, id uint64) []byte {
	b = append(b, '"')
	b = append(b, callIDPrefix...)
	b = strconv.AppendUint(b, id, 10)
	return append(b, '"')
}

// parseCallID reads an id written by appendCallID from its raw JSON.
func parseCallID(raw []byte) (uint64, bool) {
	n := len(raw)
	if n < len(callIDPrefix)+3 || raw[0] != '"' || raw[n-1] != '"' || !bytes.HasPrefix(raw[1:], []byte(callIDPrefix)) {
		return 0, false
	}
	var id uint64
	for _, d := range raw[1+len(callIDPrefix) : n-1] {
		if d < '0' || d > '9' || id > (1<<64-1)/10-1 {
			return 0, false
		}
		id = id*10 + uint64(d-'0')
	}
	return id, true
}

// badResult is the tool error for a response that could not be decoded.
func badResult(err error) *tools.Result {
	return tools.ErrorResult(fmt.Sprintf("the server's answer to this call could not be read: %v", err))
}

// tooLargeResult is the tool error for a result over the hard cap.
func tooLargeResult(limit int64) *tools.Result {
	return tools.ErrorResult(fmt.Sprintf("the result is larger than %s, the most Switchboard reads from an MCP server in one message (setting results.maxMessageBytes); it was discarded, and the server keeps running", formatBytes(limit)))
}
