package mcphost

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// stdioConn is what mcphost uses of a stdio connection (a *stdio.Conn,
// which the SDK session also runs on as its mcp.Connection): the direct
// tools/call path, the _meta that path carries, how the process ended, and
// the end of both.
type stdioConn interface {
	CallTool(ctx context.Context, timeout time.Duration, tool string, nameJSON, meta []byte, req *tools.CallRequest) (*tools.Result, error)
	Meta() (meta []byte, ok bool)
	ExitState(wait time.Duration) string
	CancelCalls()
	Close() error
}

// conn is one live session with a server: the SDK session plus, for stdio,
// the pipe transport that owns the child process and carries tools/call
// itself.
type conn struct {
	cs        *mcp.ClientSession
	transport Transport     // the transport actually used (after auto fallback)
	pipe      stdioConn     // nil unless stdio
	done      chan struct{} // closed when the session ends, for any reason
	waitErr   error         // why it ended; valid after done is closed
	endLife   func()        // ends the transport's own context, if it has one

	// life ends when close begins. Requests made on the connection derive
	// from it, because the SDK's Close waits for in-flight requests: a
	// call the server never answers would otherwise hold Close forever.
	life     context.Context //nolint:containedctx // the connection's lifetime
	stopLife context.CancelFunc

	closeOnce sync.Once
}

func newConn(cs *mcp.ClientSession, tr Transport, pipe stdioConn) *conn {
	c := &conn{cs: cs, transport: tr, pipe: pipe, done: make(chan struct{})}
	c.life, c.stopLife = context.WithCancel(context.Background())
	go func() {
		// Owned by the conn: it ends when the session ends, and close waits for it.
		c.waitErr = cs.Wait()
		close(c.done)
	}()
	return c
}

func (c *conn) protocolVersion() string {
	if r := c.cs.InitializeResult(); r != nil {
		return r.ProtocolVersion
	}
	return ""
}

// bind returns a context that ends with ctx or when the connection starts
// closing, whichever is first.
func (c *conn) bind(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(c.life, cancel)
	return ctx, func() {
		stop()
		cancel()
	}
}

// closing reports whether close has begun.
func (c *conn) closing() bool { return c.life.Err() != nil }

// direct returns whether tools/call takes the pipe's own path (on stdio),
// and the _meta members its requests carry: none before protocol
// 2026-07-28, the session's from then on, once the pipe has seen the SDK
// send them.
func (c *conn) direct() (meta []byte, ok bool) {
	if c.pipe == nil {
		return nil, false
	}
	if c.protocolVersion() < "2026-07-28" {
		return nil, true
	}
	return c.pipe.Meta()
}

// hasPing reports whether the negotiated protocol still has ping: it was
// removed in 2026-07-28, where the session is stateless.
func (c *conn) hasPing() bool { return c.protocolVersion() < "2026-07-28" }

// close ends the session (for stdio, the pipe's Close stops the process:
// stdin closed, wait, SIGTERM, SIGKILL, then its process group) and waits
// for the session watcher. It is idempotent.
func (c *conn) close() {
	c.closeOnce.Do(func() {
		c.stopLife()
		if c.pipe != nil {
			// Calls on the pipe's own path are not the SDK's in-flight
			// requests: end them now rather than after the process exits.
			c.pipe.CancelCalls()
		}
		_ = c.cs.Close()
		<-c.done
		if c.endLife != nil {
			c.endLife()
		}
		if c.pipe != nil {
			_ = c.pipe.Close() // done by the SDK's Close already; waits if still under way
		}
	})
}
