package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// watchedBody is a response body under the first-token and idle watchdogs.
// A timer cancels the request's context with a timeout [*Error] as cause;
// each successful read re-arms it with the idle timeout. Read and Close are
// called by one goroutine (the stream's); the timer's func only cancels.
type watchedBody struct {
	provider string
	ctx      context.Context //nolint:containedctx // the caller's: Read reports its cause when it ends
	rctx     context.Context //nolint:containedctx // the request's, cancelled by the timer or by Close
	cancel   context.CancelCauseFunc
	timer    *time.Timer // nil when no timeout applies
	idle     time.Duration
	rc       io.ReadCloser
	started  bool
	closed   bool
}

var errBodyClosed = errors.New("response body closed")

func (w *watchedBody) Read(p []byte) (int, error) {
	n, err := w.rc.Read(p)
	if n > 0 {
		w.rearm()
	}
	if err != nil && !errors.Is(err, io.EOF) {
		err = w.readError(err, "reading response")
	}
	return n, err
}

// rearm switches the watchdog from first-token to idle mode on the first
// bytes and pushes its deadline back on every read.
func (w *watchedBody) rearm() {
	if !w.started {
		w.started = true
		if w.timer != nil {
			w.timer.Stop() // the first-token watchdog
			w.timer = nil
		}
	}
	if w.idle <= 0 {
		return
	}
	if w.timer == nil {
		d, cancel, provider := w.idle, w.cancel, w.provider
		w.timer = time.AfterFunc(d, func() {
			cancel(&Error{
				Provider: provider, Kind: KindTimeout, Code: TimeoutIdle, Retryable: true,
				Message: fmt.Sprintf("no data for %v in the middle of the response; raise IdleTimeout if the model pauses long", d),
			})
		})
		return
	}
	w.timer.Reset(w.idle)
}

// readError turns a transport error into cancellation, a timeout [*Error]
// or a connection [*Error].
func (w *watchedBody) readError(err error, doing string) error {
	if w.ctx.Err() != nil {
		return fmt.Errorf("%s: %s: %w", w.provider, doing, w.ctx.Err())
	}
	var e *Error
	if cause := context.Cause(w.rctx); errors.As(cause, &e) {
		return e
	}
	if errors.As(err, &e) {
		return e
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		if op.Timeout() {
			return &Error{
				Provider: w.provider, Kind: KindTimeout, Code: TimeoutConnect, Retryable: true,
				Message: "connecting took too long; check the base URL or raise ConnectTimeout", Err: err,
			}
		}
		return &Error{
			Provider: w.provider, Kind: KindConnection, Retryable: true,
			Message: "cannot connect; check the base URL and that the server is running", Err: err,
		}
	}
	msg := doing + " failed"
	if errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "the connection closed in the middle of the response"
	}
	return &Error{Provider: w.provider, Kind: KindConnection, Retryable: true, Message: msg, Err: err}
}

func (w *watchedBody) stop() {
	if w.timer != nil {
		w.timer.Stop()
	}
	w.cancel(errBodyClosed)
}

// Close stops the watchdog, closes the body and cancels the request so the
// connection is released at once even if the server is still sending.
func (w *watchedBody) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	w.stop()
	return w.rc.Close()
}

// StreamError returns the error an adapter yields when reading its stream
// failed with err: err's own [*Error] or cancellation when it carries one,
// otherwise a [KindMalformed] error saying what was being read.
func StreamError(provider, what string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return MalformedError(provider, what, err)
}
