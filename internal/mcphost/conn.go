package mcphost

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// conn is one live session with a server: the SDK session plus, for stdio,
// the child process whose group is killed when the session ends.
type conn struct {
	cs        *mcp.ClientSession
	transport Transport // the transport actually used (after auto fallback)
	proc      *procGroup
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

func newConn(cs *mcp.ClientSession, tr Transport, proc *procGroup) *conn {
	c := &conn{cs: cs, transport: tr, proc: proc, done: make(chan struct{})}
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

// hasPing reports whether the negotiated protocol still has ping: it was
// removed in 2026-07-28, where the session is stateless.
func (c *conn) hasPing() bool { return c.protocolVersion() < "2026-07-28" }

// close ends the session (for stdio: closes stdin, waits, SIGTERM, SIGKILL,
// all in the SDK's CommandTransport), then kills what is left of the process
// group, and waits for the session watcher. It is idempotent.
func (c *conn) close() {
	c.closeOnce.Do(func() {
		c.stopLife()
		_ = c.cs.Close()
		<-c.done
		if c.endLife != nil {
			c.endLife()
		}
		c.proc.kill()
	})
}
