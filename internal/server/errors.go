package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// Error is an error a handler returns to choose what the client sees:
// Status and a JSON body {"error":{"code":Code,"message":Msg}}. Err, the
// cause, is logged and never sent.
type Error struct {
	Status int
	Code   string
	Msg    string
	Err    error
	// RetryAfter, when positive, is sent as the Retry-After header (seconds).
	RetryAfter int
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// errorf returns an *Error with a formatted client message.
func errorf(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Msg: fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) *Error {
	return errorf(http.StatusBadRequest, "invalid_request", format, args...)
}

// errorBody is the JSON shape of every error response.
type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// classify maps err onto what the client sees. Errors from the store, the
// tools and the agent get a status by their sentinel; anything else is an
// internal error whose text stays in the log.
func classify(err error) *Error {
	var (
		e    *Error
		rate *gate.RateError
	)
	switch {
	case errors.As(err, &e):
		return e
	case errors.As(err, &rate):
		return &Error{Status: http.StatusTooManyRequests, Code: "rate_limited", Msg: rate.Error(), RetryAfter: rate.RetryAfter}
	case errors.Is(err, store.ErrNotFound), errors.Is(err, tools.ErrNotFound), errors.Is(err, ErrNoServer):
		return &Error{Status: http.StatusNotFound, Code: "not_found", Msg: "not found", Err: err}
	case errors.Is(err, agent.ErrInvalidRequest):
		return &Error{Status: http.StatusBadRequest, Code: "invalid_request", Msg: err.Error(), Err: err}
	case errors.Is(err, agent.ErrNotPending):
		return &Error{Status: http.StatusConflict, Code: "not_pending", Msg: "the approval is no longer pending (decided or expired)", Err: err}
	case errors.Is(err, store.ErrConflict):
		return &Error{Status: http.StatusConflict, Code: "conflict", Msg: "conflict: the record exists or changed meanwhile; re-read and retry", Err: err}
	case errors.Is(err, store.ErrInvalid):
		return &Error{Status: http.StatusBadRequest, Code: "invalid_request", Msg: "the store refused the input; check required fields", Err: err}
	case errors.Is(err, tools.ErrUnavailable):
		return &Error{Status: http.StatusServiceUnavailable, Code: "unavailable", Msg: "the tool's server is not connected; see /api/v1/servers", Err: err}
	case errors.Is(err, context.Canceled):
		return &Error{Status: 499, Code: "cancelled", Msg: "the request was cancelled", Err: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Status: http.StatusGatewayTimeout, Code: "timeout", Msg: "the request timed out", Err: err}
	}
	return &Error{Status: http.StatusInternalServerError, Code: "internal", Msg: "internal error; the server log has the cause", Err: err}
}

// writeError sends err as JSON and logs its cause once: at Error level for
// server faults, Debug for client mistakes.
func writeError(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) {
	e := classify(err)
	level := slog.LevelDebug
	if e.Status >= 500 && e.Status != http.StatusServiceUnavailable {
		level = slog.LevelError
	}
	logger.Log(r.Context(), level, "request failed", logKeyStatus, e.Status, logKeyErr, err)
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	var body errorBody
	body.Error.Code, body.Error.Message = e.Code, e.Msg
	writeJSON(w, e.Status, body)
}

// writeJSON sends v with status. A failed write means the client is gone.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"code":"internal","message":"encoding the response failed"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// decodeJSON reads a size-limited JSON body into v; unknown fields are
// refused so that typos do not pass silently.
func decodeJSON(w http.ResponseWriter, r *http.Request, limit int64, v any) error {
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return &Error{Status: http.StatusRequestEntityTooLarge, Code: "too_large", Msg: fmt.Sprintf("request body is larger than %d bytes", limit), Err: err}
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return &Error{Status: http.StatusRequestTimeout, Code: "body_timeout", Msg: "the request body did not arrive in time; send it at once", Err: err}
		}
		return &Error{Status: http.StatusBadRequest, Code: "invalid_json", Msg: "request body is not the expected JSON: " + err.Error(), Err: err}
	}
	if dec.More() {
		return badRequest("request body has data after the JSON value; send one object")
	}
	return nil
}
