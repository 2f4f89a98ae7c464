package llm

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrorDecoder turns an error response (status not 2xx) into an [*Error].
// body is at most [MaxErrorBody] bytes.
type ErrorDecoder func(provider string, status int, header http.Header, body []byte) *Error

// MaxErrorBody is how much of an error response is read.
const MaxErrorBody = 64 << 10

// DecodeError is the default [ErrorDecoder]. It understands the error bodies
// of every supported API and the usual OpenAI-compatible servers:
//
//	{"error":{"message":"...","type":"...","code":"..."}}        OpenAI, vLLM, LM Studio
//	{"type":"error","error":{"type":"overloaded_error","message":"..."}}  Anthropic
//	{"error":{"code":400,"message":"...","status":"INVALID_ARGUMENT"}}    Gemini
//	{"error":"..."}                                               Ollama, llama.cpp
//	{"message":"...","type":"...","code":400}  {"detail":"..."}   vLLM, FastAPI servers
//
// and falls back to the body as text. It sets RetryAfter from the headers.
func DecodeError(provider string, status int, header http.Header, body []byte) *Error {
	code, msg := parseErrorBody(body)
	e := NewError(provider, status, code, msg)
	if d := ParseRetryAfter(header, time.Now()); d > 0 {
		e.RetryAfter = d
	}
	return e
}

// errorFields are the fields error bodies use, at the top level or under "error".
type errorFields struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
	Status  string          `json:"status"`
	Detail  json.RawMessage `json:"detail"`
	Error   json.RawMessage `json:"error"`
}

func parseErrorBody(body []byte) (code, msg string) {
	body = bytes.TrimSpace(body)
	var top errorFields
	if len(body) == 0 || body[0] != '{' || json.Unmarshal(body, &top) != nil {
		return "", bodyText(body)
	}
	f := top
	if len(top.Error) > 0 {
		var s string
		if json.Unmarshal(top.Error, &s) == nil {
			return "", s
		}
		var inner errorFields
		if json.Unmarshal(top.Error, &inner) == nil {
			f = inner
		}
	}
	msg = f.Message
	if msg == "" && len(f.Detail) > 0 {
		var s string
		if json.Unmarshal(f.Detail, &s) == nil {
			msg = s
		} else {
			msg = bodyText(f.Detail)
		}
	}
	if msg == "" {
		msg = bodyText(body)
	}
	// Prefer the most specific code: a string code ("context_length_exceeded")
	// over a type ("invalid_request_error") over a status word.
	var s string
	switch {
	case len(f.Code) > 0 && json.Unmarshal(f.Code, &s) == nil && s != "":
		code = s
	case f.Type != "":
		code = f.Type
	default:
		code = f.Status
	}
	return code, msg
}

// bodyText returns a printable, bounded rendering of a non-JSON body.
func bodyText(b []byte) string {
	const max = 500
	s := strings.TrimSpace(string(b))
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "?")
	}
	if len(s) > max {
		s = s[:max] + "..."
	}
	return s
}

// NewError classifies a provider error from its HTTP status (zero for an
// error event inside a stream), code or type, and message.
func NewError(provider string, status int, code, msg string) *Error {
	e := &Error{Provider: provider, Status: status, Code: code, Message: msg}
	lc, lm := strings.ToLower(code), strings.ToLower(msg)
	switch {
	case toolsUnsupported(lm):
		e.Kind, e.Err = KindInvalidRequest, ErrToolsUnsupported
	case contextTooLong(lc, lm):
		e.Kind = KindContextTooLong
	case status == http.StatusUnauthorized || status == http.StatusForbidden ||
		lc == "authentication_error" || lc == "permission_error" || lc == "invalid_api_key":
		e.Kind = KindAuth
	case status == http.StatusTooManyRequests || lc == "rate_limit_error" || lc == "rate_limit_exceeded":
		// An exhausted quota is a 429 too, but waiting does not help.
		e.Kind, e.Retryable = KindRateLimit, lc != "insufficient_quota"
	case status == http.StatusNotFound || lc == "not_found_error" || lc == "model_not_found":
		e.Kind = KindNotFound
	case status == http.StatusRequestTimeout:
		e.Kind, e.Retryable = KindTimeout, true
	case status == http.StatusNotImplemented:
		e.Kind = KindServer
	case status >= 500 || lc == "overloaded_error" || lc == "api_error" || lc == "server_error":
		e.Kind, e.Retryable = KindServer, true
	case status >= 400 || lc == "invalid_request_error" || lc == "request_too_large":
		e.Kind = KindInvalidRequest
	default:
		e.Kind = KindServer
	}
	if e.Message == "" {
		e.Message = http.StatusText(status)
	}
	return e
}

func toolsUnsupported(lm string) bool {
	for _, s := range []string{
		"does not support tools", "does not support tool", "tools are not supported",
		"tools is not supported", "tool use is not supported", "tool calling is not supported",
		"tools param requires --jinja", "function calling is not enabled", "\"auto\" tool choice requires",
	} {
		if strings.Contains(lm, s) {
			return true
		}
	}
	return false
}

func contextTooLong(lc, lm string) bool {
	if lc == "context_length_exceeded" || lc == "string_above_max_length" {
		return true
	}
	for _, s := range []string{
		"context length", "context window", "context size", "maximum context", "prompt is too long",
		"input is too long", "too many tokens", "exceeds the maximum number of tokens",
		"reduce the length of the messages", "input token count",
	} {
		if strings.Contains(lm, s) {
			return true
		}
	}
	return false
}

// ParseRetryAfter returns the wait asked for by retry-after-ms (OpenAI) or
// Retry-After in seconds or as an HTTP date, or zero when neither is usable.
func ParseRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 || s > 1e9 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
