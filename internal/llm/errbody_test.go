package llm

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestDecodeError(t *testing.T) {
	tests := []struct {
		name   string
		status int
		header http.Header
		body   string
		want   *Error
	}{
		{
			name:   "openai context length",
			status: 400,
			body:   `{"error":{"message":"This model's maximum context length is 8192 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
			want:   &Error{Status: 400, Code: "context_length_exceeded", Message: "This model's maximum context length is 8192 tokens.", Kind: KindContextTooLong},
		},
		{
			name:   "openai rate limit with retry-after-ms",
			status: 429,
			header: http.Header{"Retry-After-Ms": {"1500"}},
			body:   `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`,
			want:   &Error{Status: 429, Code: "rate_limit_exceeded", Message: "Rate limit reached", Kind: KindRateLimit, Retryable: true, RetryAfter: 1500 * time.Millisecond},
		},
		{
			name:   "openai quota is not retryable",
			status: 429,
			body:   `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`,
			want:   &Error{Status: 429, Code: "insufficient_quota", Message: "You exceeded your current quota", Kind: KindRateLimit},
		},
		{
			name:   "anthropic overloaded",
			status: 529,
			header: http.Header{"Retry-After": {"3"}},
			body:   `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			want:   &Error{Status: 529, Code: "overloaded_error", Message: "Overloaded", Kind: KindServer, Retryable: true, RetryAfter: 3 * time.Second},
		},
		{
			name:   "anthropic prompt too long",
			status: 400,
			body:   `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}`,
			want:   &Error{Status: 400, Code: "invalid_request_error", Message: "prompt is too long: 208310 tokens > 200000 maximum", Kind: KindContextTooLong},
		},
		{
			name:   "anthropic auth",
			status: 401,
			body:   `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`,
			want:   &Error{Status: 401, Code: "authentication_error", Message: "invalid x-api-key", Kind: KindAuth},
		},
		{
			name:   "gemini",
			status: 400,
			body:   `{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}`,
			want:   &Error{Status: 400, Code: "INVALID_ARGUMENT", Message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", Kind: KindContextTooLong},
		},
		{
			name:   "ollama tools unsupported, plain string",
			status: 400,
			body:   `{"error":"registry.ollama.ai/library/gemma:2b does not support tools"}`,
			want:   &Error{Status: 400, Message: "registry.ollama.ai/library/gemma:2b does not support tools", Kind: KindInvalidRequest, Err: ErrToolsUnsupported},
		},
		{
			name:   "llama.cpp tools need jinja, 500",
			status: 500,
			body:   `{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}`,
			want:   &Error{Status: 500, Code: "server_error", Message: "tools param requires --jinja flag", Kind: KindInvalidRequest, Err: ErrToolsUnsupported},
		},
		{
			name:   "vllm top-level",
			status: 400,
			body:   `{"object":"error","message":"This model's maximum context length is 4096 tokens.","type":"BadRequestError","code":400}`,
			want:   &Error{Status: 400, Code: "BadRequestError", Message: "This model's maximum context length is 4096 tokens.", Kind: KindContextTooLong},
		},
		{
			name:   "fastapi detail",
			status: 404,
			body:   `{"detail":"Not Found"}`,
			want:   &Error{Status: 404, Message: "Not Found", Kind: KindNotFound},
		},
		{
			name:   "html from a proxy",
			status: 502,
			body:   "<html><body>Bad Gateway</body></html>",
			want:   &Error{Status: 502, Message: "<html><body>Bad Gateway</body></html>", Kind: KindServer, Retryable: true},
		},
		{
			name:   "empty body",
			status: 503,
			want:   &Error{Status: 503, Message: "Service Unavailable", Kind: KindServer, Retryable: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.header
			if h == nil {
				h = http.Header{}
			}
			got := DecodeError("p", tt.status, h, []byte(tt.body))
			tt.want.Provider = "p"
			if diff := cmp.Diff(*tt.want, *got, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("DecodeError mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrorPredicates(t *testing.T) {
	var err error = &Error{Provider: "p", Kind: KindContextTooLong, Status: 400}
	wrapped := errors.Join(errors.New("running agent"), err)
	if !IsContextTooLarge(wrapped) || IsRetryable(wrapped) {
		t.Errorf("predicates through a wrapper: IsContextTooLarge=%v IsRetryable=%v", IsContextTooLarge(wrapped), IsRetryable(wrapped))
	}
	var e *Error
	if !errors.As(wrapped, &e) || !e.IsContextTooLarge() || e.IsAuth() {
		t.Errorf("errors.As did not find the *Error with its kind")
	}
	tu := NewError("p", 400, "", "model x does not support tools")
	if !errors.Is(tu, ErrToolsUnsupported) {
		t.Errorf("errors.Is(%v, ErrToolsUnsupported) = false", tu)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header http.Header
		want   time.Duration
	}{
		{"none", http.Header{}, 0},
		{"seconds", http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{"fraction", http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{"date", http.Header{"Retry-After": {now.Add(30 * time.Second).Format(http.TimeFormat)}}, 30 * time.Second},
		{"past date", http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0},
		{"negative", http.Header{"Retry-After": {"-3"}}, 0},
		{"ms wins", http.Header{"Retry-After": {"7"}, "Retry-After-Ms": {"250"}}, 250 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ParseRetryAfter(tt.header, now); got != tt.want {
				t.Errorf("ParseRetryAfter(%v) = %v, want %v", tt.header, got, tt.want)
			}
		})
	}
}
