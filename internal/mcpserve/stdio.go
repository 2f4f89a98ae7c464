package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves one MCP session over newline-delimited JSON-RPC on in
// and out (a process's stdin and stdout, for `switchboard mcp`), as the
// [Options].Local caller. It returns nil when the client ends the session
// (closes in), ctx.Err() when ctx ends, and [ErrClosed] when the Server is
// closed. When in or out is also an [io.Closer], it is closed when the
// session ends, which is what unblocks a pending read.
//
// Several ServeStdio calls may run at once, each with its own session.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()

	t := &mcp.IOTransport{Reader: readCloser(in), Writer: writeCloser(out)}
	// The SDK keeps the values of this context for the session's handlers
	// but not its cancellation; lifetimeKey carries that (see callContext).
	sctx := context.WithValue(WithCaller(ctx, s.opts.Local), lifetimeKey{}, ctx)
	ss, err := s.mcp.Connect(sctx, t, nil)
	if err != nil {
		return fmt.Errorf("starting the stdio mcp session: %w", err)
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case err = <-ended:
	case <-ctx.Done():
		_ = ss.Close() // the outcome is ctx's, below
		err = <-ended
	case <-s.ctx.Done():
		_ = ss.Close()
		err = <-ended
	}
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case s.ctx.Err() != nil:
		return ErrClosed
	case err == nil, errors.Is(err, io.EOF), errors.Is(err, mcp.ErrConnectionClosed):
		return nil
	default:
		return fmt.Errorf("serving mcp over stdio: %w", err)
	}
}

func readCloser(r io.Reader) io.ReadCloser {
	if rc, ok := r.(io.ReadCloser); ok {
		return rc
	}
	return io.NopCloser(r)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func writeCloser(w io.Writer) io.WriteCloser {
	if wc, ok := w.(io.WriteCloser); ok {
		return wc
	}
	return nopWriteCloser{w}
}
