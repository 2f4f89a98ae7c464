package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"time"
)

// HTTPOptions configure a [Transport]. Adapters embed it in their own
// Options. The zero value means the defaults given on each field.
type HTTPOptions struct {
	// HTTPClient sends the requests. Nil means a client of our own whose
	// dialer honours ConnectTimeout. Timeouts of a given client still apply
	// on top of ours; leave its Timeout zero for long streams.
	HTTPClient *http.Client
	// ConnectTimeout bounds dialing (DNS, TCP, TLS) when HTTPClient is nil.
	// Zero means 10s.
	ConnectTimeout time.Duration
	// FirstTokenTimeout bounds the time from sending a request to the first
	// byte of its response body. Zero means 5 minutes (reasoning models can
	// think long); negative means none.
	FirstTokenTimeout time.Duration
	// IdleTimeout bounds the silence between two reads of the response body
	// once it has started. Zero means 2 minutes; negative means none.
	IdleTimeout time.Duration
	// MaxRetries is how many times a retryable failure (429, 5xx, 529, a
	// connection error) is retried before any output. Zero means 2;
	// negative means none.
	MaxRetries int
	// InitialBackoff is the first wait between retries when the provider
	// gives no Retry-After; it doubles each time, with jitter. Zero means 1s.
	InitialBackoff time.Duration
	// MaxRetryWait caps one wait. A provider asking (Retry-After) for longer
	// gets its error returned at once rather than a stalled request. Zero
	// means 60s.
	MaxRetryWait time.Duration
	// Logger receives one Debug record per retry. Nil means discard.
	Logger *slog.Logger
}

// Transport sends provider requests: retries with backoff, timeouts, and
// error bodies decoded into [*Error]. It is safe for concurrent use.
type Transport struct {
	provider string
	decode   ErrorDecoder
	client   *http.Client
	opts     HTTPOptions
	logger   *slog.Logger
}

// NewTransport returns a Transport for the named provider. decode nil means
// [DecodeError]; opts nil means defaults. opts is copied.
func NewTransport(provider string, decode ErrorDecoder, opts *HTTPOptions) *Transport {
	t := &Transport{provider: provider, decode: decode}
	if opts != nil {
		t.opts = *opts
	}
	if t.decode == nil {
		t.decode = DecodeError
	}
	o := &t.opts
	if o.ConnectTimeout == 0 {
		o.ConnectTimeout = 10 * time.Second
	}
	if o.FirstTokenTimeout == 0 {
		o.FirstTokenTimeout = 5 * time.Minute
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = 2 * time.Minute
	}
	if o.MaxRetries == 0 {
		o.MaxRetries = 2
	}
	if o.InitialBackoff <= 0 {
		o.InitialBackoff = time.Second
	}
	if o.MaxRetryWait <= 0 {
		o.MaxRetryWait = 60 * time.Second
	}
	t.logger = o.Logger
	if t.logger == nil {
		t.logger = slog.New(slog.DiscardHandler)
	}
	t.client = o.HTTPClient
	if t.client == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.DialContext = (&net.Dialer{Timeout: o.ConnectTimeout, KeepAlive: 30 * time.Second}).DialContext
		tr.TLSHandshakeTimeout = o.ConnectTimeout
		t.client = &http.Client{Transport: tr}
	}
	return t
}

// Provider returns the provider name errors carry.
func (t *Transport) Provider() string { return t.provider }

// Do sends body to url with the given method and headers and returns the
// successful (2xx) response. Failures before the response body is handed
// over are retried as [HTTPOptions] say; every error is an [*Error] except
// cancellation, which wraps ctx's error.
//
// The caller must close resp.Body. Reads from it fail with an [*Error] of
// kind [KindTimeout] when FirstTokenTimeout or IdleTimeout expire, of kind
// [KindConnection] when the connection breaks, and with ctx's error when ctx
// is cancelled; closing it releases the connection at once.
func (t *Transport) Do(ctx context.Context, method, url string, header http.Header, body []byte) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		resp, err := t.attempt(ctx, method, url, header, body)
		if err == nil {
			return resp, nil
		}
		if !t.canRetry(err, attempt) {
			return nil, err
		}
		if err := t.wait(ctx, err, attempt); err != nil {
			return nil, err
		}
	}
}

// DoJSON sends body like [Transport.Do] and decodes the whole JSON reply
// into out. A reply that cannot be read is an [*Error] as for Do; one that
// is not the JSON out expects is a [KindMalformed] error naming what.
func (t *Transport) DoJSON(ctx context.Context, method, url string, header http.Header, body []byte, what string, out any) error {
	resp, err := t.Do(ctx, method, url, header, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return StreamError(t.provider, what, err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return MalformedError(t.provider, what, err)
	}
	return nil
}

// Stream sends a streaming request like [Transport.Do] and hands each
// successful response to decode, which yields the events it reads. A
// retryable failure that comes before decode has yielded anything (an
// overloaded error event first thing, a connection closed before the first
// token, a first-token timeout) is retried like a failed request; once an
// event has reached the consumer, errors are yielded as they are. The
// returned sequence may be ranged once; the body is closed before the range
// ends.
func (t *Transport) Stream(ctx context.Context, method, url string, header http.Header, body []byte,
	decode func(resp *http.Response, yield func(Event, error) bool),
) iter.Seq2[Event, error] {
	return Once(func(yield func(Event, error) bool) {
		for attempt := 0; ; attempt++ {
			resp, err := t.attempt(ctx, method, url, header, body)
			if err == nil {
				err = t.decodeOnce(resp, attempt, yield, decode)
				if err == nil {
					return
				}
			} else if !t.canRetry(err, attempt) {
				yield(Event{}, err)
				return
			}
			if err := t.wait(ctx, err, attempt); err != nil {
				yield(Event{}, err)
				return
			}
		}
	})
}

// decodeOnce runs decode on resp and closes its body. It returns the error
// to retry on, or nil when the stream is over for good (ended, failed after
// output, or stopped by the consumer).
func (t *Transport) decodeOnce(resp *http.Response, attempt int, yield func(Event, error) bool,
	decode func(*http.Response, func(Event, error) bool),
) error {
	defer resp.Body.Close()
	yielded := false
	var retry error
	decode(resp, func(ev Event, err error) bool {
		if err != nil && !yielded && t.canRetry(err, attempt) {
			retry = err
			return false
		}
		yielded = true
		return yield(ev, err)
	})
	return retry
}

// canRetry reports whether err may be retried after attempt (counting from 0).
func (t *Transport) canRetry(err error, attempt int) bool {
	var e *Error
	return errors.As(err, &e) && e.Retryable && t.opts.MaxRetries >= 0 && attempt < t.opts.MaxRetries
}

// wait sleeps before the next attempt: the provider's Retry-After, or an
// exponential backoff with jitter. It returns cause when the wait would
// exceed MaxRetryWait, and ctx's error when ctx ends first.
func (t *Transport) wait(ctx context.Context, cause error, attempt int) error {
	var e *Error
	errors.As(cause, &e)
	wait := e.RetryAfter
	if wait == 0 {
		wait = t.opts.InitialBackoff << attempt
		wait += time.Duration(rand.Int64N(int64(wait)/4 + 1))
	}
	if wait > t.opts.MaxRetryWait {
		return cause
	}
	t.logger.DebugContext(ctx, "retrying provider request", logKeyProvider, t.provider,
		logKeyAttempt, attempt+1, logKeyWait, wait, logKeyErr, cause.Error())
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return fmt.Errorf("%s: waiting to retry: %w", t.provider, ctx.Err())
	case <-timer.C:
		return nil
	}
}

func (t *Transport) attempt(ctx context.Context, method, url string, header http.Header, body []byte) (*http.Response, error) {
	rctx, cancel := context.WithCancelCause(ctx)
	w := &watchedBody{provider: t.provider, ctx: ctx, rctx: rctx, cancel: cancel, idle: t.opts.IdleTimeout}
	if d := t.opts.FirstTokenTimeout; d > 0 {
		w.timer = time.AfterFunc(d, func() { cancel(t.timeoutError(TimeoutFirstToken, d)) })
	}
	req, err := http.NewRequestWithContext(rctx, method, url, bytes.NewReader(body))
	if err != nil {
		w.stop()
		return nil, &Error{
			Provider: t.provider, Kind: KindInvalidRequest,
			Message: fmt.Sprintf("building request for %q; check the base URL", url), Err: err,
		}
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := t.client.Do(req)
	if err != nil {
		err = w.readError(err, "sending request")
		w.stop()
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, rerr := io.ReadAll(io.LimitReader(resp.Body, MaxErrorBody))
		resp.Body.Close()
		if rerr != nil && len(b) == 0 {
			rerr = w.readError(rerr, "reading error response")
			w.stop()
			return nil, rerr
		}
		w.stop()
		return nil, t.decode(t.provider, resp.StatusCode, resp.Header, b)
	}
	w.rc = resp.Body
	resp.Body = w
	return resp, nil
}

func (t *Transport) timeoutError(code string, d time.Duration) *Error {
	return &Error{
		Provider: t.provider, Kind: KindTimeout, Code: code, Retryable: true,
		Message: fmt.Sprintf("no response within %v of sending the request; raise FirstTokenTimeout for slow models", d),
	}
}
