package llm

import (
	"errors"
	"fmt"
	"time"
)

// ErrorKind classifies an [*Error] so callers can decide what to do.
type ErrorKind string

const (
	// KindAuth: the API key is missing, wrong or lacks permission (401, 403).
	KindAuth ErrorKind = "auth"
	// KindRateLimit: too many requests or tokens (429); retryable.
	KindRateLimit ErrorKind = "rate_limit"
	// KindContextTooLong: the prompt does not fit the model's context window.
	// Shorten the conversation; retrying as is will fail again.
	KindContextTooLong ErrorKind = "context_too_long"
	// KindInvalidRequest: the provider rejected the request (400, 422), for
	// example tools on a model without tool support ([ErrToolsUnsupported]).
	KindInvalidRequest ErrorKind = "invalid_request"
	// KindNotFound: the model or endpoint does not exist (404).
	KindNotFound ErrorKind = "not_found"
	// KindServer: the provider failed or is overloaded (5xx, 529); retryable.
	KindServer ErrorKind = "server"
	// KindTimeout: connecting, the first token or the next chunk took longer
	// than configured; Code says which ("connect", "first_token", "idle").
	KindTimeout ErrorKind = "timeout"
	// KindConnection: the connection failed or closed mid-stream.
	KindConnection ErrorKind = "connection"
	// KindMalformed: the provider sent something that is not its wire format.
	KindMalformed ErrorKind = "malformed"
)

// Timeout codes set in [Error.Code] for errors of kind [KindTimeout].
const (
	TimeoutConnect    = "connect"
	TimeoutFirstToken = "first_token"
	TimeoutIdle       = "idle"
)

// ErrToolsUnsupported is wrapped by the [*Error] an adapter returns when the
// server rejected the request because the model cannot use tools, so the
// tool-mode layer can fall back to the text protocol:
//
//	if errors.Is(err, llm.ErrToolsUnsupported) { ... }
var ErrToolsUnsupported = errors.New("model does not support tools")

// ErrStreamReused is returned when a stream is ranged over a second time.
var ErrStreamReused = errors.New("llm stream ranged over twice; call Stream again for a new request")

// Error is a failure reported by, or on the way to, a provider. Check for it
// with errors.As; the predicates below read the fields for common decisions.
type Error struct {
	// Provider names the adapter ("openai", "anthropic", ...).
	Provider string
	// Status is the HTTP status, or zero when no response arrived.
	Status int
	// Code is the provider's error code or type ("context_length_exceeded",
	// "overloaded_error"), or a timeout code; may be empty.
	Code string
	// Message is the provider's own message, or ours when it sent none.
	Message string
	Kind    ErrorKind
	// Retryable reports whether the same request may succeed later.
	Retryable bool
	// RetryAfter is the wait the provider asked for, zero when it did not.
	RetryAfter time.Duration
	// Err is the underlying cause (a network error, [ErrToolsUnsupported],
	// [ErrIncomplete]); may be nil.
	Err error
}

func (e *Error) Error() string {
	s := e.Provider + ": " + string(e.Kind)
	switch {
	case e.Status != 0 && e.Code != "":
		s += fmt.Sprintf(" (%d %s)", e.Status, e.Code)
	case e.Status != 0:
		s += fmt.Sprintf(" (%d)", e.Status)
	case e.Code != "":
		s += " (" + e.Code + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Err != nil && (e.Message == "" || e.Err.Error() != e.Message) {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// IsRetryable reports whether the same request may succeed later.
func (e *Error) IsRetryable() bool { return e != nil && e.Retryable }

// IsContextTooLarge reports whether the prompt exceeded the context window.
func (e *Error) IsContextTooLarge() bool { return e != nil && e.Kind == KindContextTooLong }

// IsAuth reports whether the credentials were rejected.
func (e *Error) IsAuth() bool { return e != nil && e.Kind == KindAuth }

// IsTimeout reports whether a configured timeout expired.
func (e *Error) IsTimeout() bool { return e != nil && e.Kind == KindTimeout }

// IsRetryable reports whether err is an [*Error] that may succeed if retried.
func IsRetryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Retryable
}

// IsContextTooLarge reports whether err is an [*Error] for a prompt that
// exceeded the model's context window.
func IsContextTooLarge(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == KindContextTooLong
}

// MalformedError returns the error an adapter reports when the provider sent
// something it cannot parse; what says what was being read.
func MalformedError(provider, what string, err error) *Error {
	return &Error{
		Provider: provider,
		Kind:     KindMalformed,
		Message:  "reading " + what + ": the response is not in the provider's format; check the base URL and API flavour",
		Err:      err,
	}
}

// IncompleteError returns the error an adapter reports when the stream ended
// before the provider's end marker.
func IncompleteError(provider string) *Error {
	return &Error{
		Provider:  provider,
		Kind:      KindConnection,
		Message:   "the connection closed before the response was complete",
		Retryable: true,
		Err:       ErrIncomplete,
	}
}

// RequestError returns the error an adapter reports when it cannot build a
// request from an [Request] (no model, an image without data, a role it
// does not know). The request was not sent.
func RequestError(provider string, err error) *Error {
	return &Error{Provider: provider, Kind: KindInvalidRequest, Message: "building request", Err: err}
}
