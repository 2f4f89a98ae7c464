package mcphost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/mcphost/stdio"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// mcpTool is one tool of one server. It refers to the supervisor rather than
// to a connection, so a tool value stays usable across reconnects.
type mcpTool struct {
	srv      *server
	info     tools.Info
	nameJSON []byte // info.Name as a JSON string, for the pipe's requests
}

var _ tools.Tool = (*mcpTool)(nil)

func (t *mcpTool) Info() tools.Info { return t.info }

// Call sends tools/call on the server's current connection: on stdio
// through the pipe's own path, otherwise through the SDK session. The call
// is bounded by the server's CallTimeout; when ctx ends or the timeout
// fires the server gets notifications/cancelled.
func (t *mcpTool) Call(ctx context.Context, req *tools.CallRequest) (*tools.Result, error) {
	if t.srv.users != nil {
		// A per-user server's own connection only lists tools.
		return t.srv.users.call(ctx, t, req)
	}
	c := t.srv.current()
	if c == nil {
		return nil, fmt.Errorf("calling %s on mcp server %q: %w", t.info.Name, t.srv.cfg.Name, tools.ErrUnavailable)
	}
	return t.callOn(ctx, c, req)
}

// callOn makes the call on connection c of t's server.
func (t *mcpTool) callOn(ctx context.Context, c *conn, req *tools.CallRequest) (*tools.Result, error) {
	timeout := t.srv.cfg.callTimeout()
	var (
		res      *tools.Result
		err      error
		timedOut bool
	)
	// viaSDK makes the call through the SDK session, under the timeout.
	viaSDK := func() {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		res, err = t.callSDK(cctx, c, req)
		timedOut = cctx.Err() != nil
	}
	if meta, ok := c.direct(); ok {
		// The pipe keeps the timeout itself, without a context a call.
		res, err = c.pipe.CallTool(ctx, timeout, t.info.Name, t.nameJSON, meta, req)
		timedOut = errors.Is(err, stdio.ErrCallTimeout)
		if errors.Is(err, stdio.ErrInputRequired) {
			// The server has not run the tool; the SDK answers its
			// questions and asks again.
			viaSDK()
		}
	} else {
		viaSDK()
	}
	switch {
	case err == nil:
		return res, nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case c.closing():
		return nil, fmt.Errorf("calling %s on mcp server %q: the connection closed during the call: %w",
			t.info.Name, t.srv.cfg.Name, tools.ErrUnavailable)
	case timedOut:
		return tools.ErrorResult(fmt.Sprintf("tool %s on mcp server %s did not answer within %v; the call was cancelled",
			t.info.Name, t.srv.cfg.Name, timeout)), nil
	case errors.Is(err, mcp.ErrConnectionClosed):
		t.srv.reportSuspect()
		return nil, fmt.Errorf("calling %s on mcp server %q: connection lost during the call: %w: %w",
			t.info.Name, t.srv.cfg.Name, tools.ErrUnavailable, err)
	}
	var werr *jsonrpc.Error
	if errors.As(err, &werr) && werr.Code != codeRejectedByTransport {
		// A protocol-level error (unknown tool, invalid params): the model
		// can still read it and adjust.
		return tools.ErrorResult(fmt.Sprintf("mcp server %s: %s", t.srv.cfg.Name, werr.Message)), nil
	}
	// Anything else is a transport failure (the connection broke, the
	// answer could not be read): have the supervisor check the connection.
	t.srv.reportSuspect()
	return nil, fmt.Errorf("calling %s on mcp server %q: %w: %w", t.info.Name, t.srv.cfg.Name, tools.ErrUnavailable, err)
}

// callSDK makes the call through the SDK session (remote servers, and
// stdio sessions of protocol 2026-07-28).
func (t *mcpTool) callSDK(ctx context.Context, c *conn, req *tools.CallRequest) (*tools.Result, error) {
	params := &mcp.CallToolParams{Name: t.info.Name, Arguments: json.RawMessage(`{}`)}
	if req != nil && len(req.Arguments) > 0 && string(req.Arguments) != "null" {
		if !json.Valid(req.Arguments) {
			return tools.ErrorResult("arguments are not valid JSON"), nil
		}
		params.Arguments = req.Arguments
	}
	if req != nil && req.Progress != nil {
		tok := t.srv.cfg.Name + "-" + strconv.FormatUint(t.srv.progressSeq.Add(1), 10)
		p := newProgressSink(req.Progress)
		t.srv.progressFns.Store(tok, p.report)
		defer func() {
			p.drain()
			t.srv.progressFns.Delete(tok)
			p.stop()
		}()
		params.SetProgressToken(tok)
	}
	bctx, unbind := c.bind(ctx)
	defer unbind()
	res, err := c.cs.CallTool(bctx, params)
	if err != nil {
		return nil, err
	}
	out, err := resultFromMCP(res)
	if err != nil {
		return tools.ErrorResult(err.Error()), nil
	}
	return out, nil
}

// codeRejectedByTransport is the code the SDK's HTTP transports give an
// HTTP-level failure (a 5xx, an unexpected content type): the server was
// not reached, so it is an outage, not an answer.
const codeRejectedByTransport = -32005

// On the SDK's path, a finished call waits briefly for progress
// notifications the server sent just before its result: the SDK hands the result to the caller straight
// from the reader, but queues notifications for a handler goroutine, so the
// last ones can trail the result by a few scheduler ticks. The wait ends at
// once when a report reached its total; it is longer once the server has
// shown it reports progress, and short when it sent none.
const (
	progressGrace       = 100 * time.Millisecond
	progressGraceSilent = 20 * time.Millisecond
)

// progressSink forwards progress reports until the call returns, keeping the
// contract that Progress is never called after Call returns.
type progressSink struct {
	mu       sync.Mutex
	fn       func(tools.Progress) // mu guards fn, seen and complete; fn is nil once the call returned
	seen     bool                 // at least one report arrived
	complete bool                 // a report reached its total
	done     chan struct{}        // closed when complete becomes true
}

func newProgressSink(fn func(tools.Progress)) *progressSink {
	return &progressSink{fn: fn, done: make(chan struct{})}
}

func (p *progressSink) report(pr tools.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fn == nil {
		return
	}
	p.fn(pr)
	p.seen = true
	if !p.complete && pr.Total > 0 && pr.Progress >= pr.Total {
		p.complete = true
		close(p.done)
	}
}

// drain waits a moment for trailing reports; see progressGrace.
func (p *progressSink) drain() {
	p.mu.Lock()
	grace := progressGraceSilent
	if p.seen {
		grace = progressGrace
	}
	p.mu.Unlock()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
	}
}

func (p *progressSink) stop() {
	p.mu.Lock()
	p.fn = nil
	p.mu.Unlock()
}
