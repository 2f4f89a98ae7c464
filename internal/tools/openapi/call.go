package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// errorSnippet is how much of a failed response's body the model sees.
const errorSnippet = 2 << 10

// tool is one operation offered as a [tools.Tool]. It holds only its name:
// each call looks up the server's current operation of that name, so the
// tool survives refreshes that keep the operation.
type tool struct {
	s    *Server
	info tools.Info
}

var _ tools.Tool = (*tool)(nil)

func (t *tool) Info() tools.Info { return t.info }

// Call sends the operation's HTTP request. Remote failures (non-2xx,
// network errors, timeouts) are tool errors the model sees; a Go error
// means ctx ended or the operation is no longer available.
func (t *tool) Call(ctx context.Context, req *tools.CallRequest) (*tools.Result, error) {
	if err := t.s.Sync(ctx); err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	snap, why := t.s.current()
	op := snap.ops[t.info.Name]
	if op == nil {
		if why == "" {
			why = "the operation is no longer in the document"
		}
		return nil, fmt.Errorf("calling %s on openapi server %q: %w: %s", t.info.Name, t.s.name, tools.ErrUnavailable, why)
	}
	var raw json.RawMessage
	if req != nil {
		raw = req.Arguments
	}
	args, err := decodeArgs(raw)
	if err != nil {
		return tools.ErrorResult(err.Error()), nil
	}
	return t.s.call(ctx, snap.base, op, args)
}

// decodeArgs decodes a JSON object of arguments, keeping numbers exact.
func decodeArgs(raw json.RawMessage) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid arguments: %w", err)
	}
	if v == nil {
		return map[string]any{}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("invalid arguments: expected a JSON object")
	}
	return m, nil
}

// call sends op with args to base and turns the answer into a result.
func (s *Server) call(ctx context.Context, base string, op *operation, args map[string]any) (*tools.Result, error) {
	cctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	req, err := buildRequest(cctx, base, op, args)
	if err != nil {
		return tools.ErrorResult(err.Error()), nil
	}
	s.authorize(req)
	if s.opts.UserHeader != nil {
		name, value, err := s.opts.UserHeader(ctx)
		if err != nil {
			return tools.ErrorResult(err.Error()), nil
		}
		req.Header.Set(name, value)
	}
	what := op.method + " " + op.path
	resp, err := s.client.Do(req)
	if err != nil {
		return s.transportError(ctx, cctx, what, err)
	}
	defer resp.Body.Close()
	body, cut, err := readLimited(resp.Body, s.opts.MaxResponseBytes)
	if err != nil {
		return s.transportError(ctx, cctx, what, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := fmt.Sprintf("HTTP %s from %s", resp.Status, what)
		if len(body) > 0 {
			msg += ": " + snippet(body, errorSnippet)
		}
		return tools.ErrorResult(msg), nil
	}
	return formatResponse(resp, body, cut, s.opts.MaxResponseBytes), nil
}

// transportError maps a failed exchange: the caller's ctx ending is a Go
// error; our own timeout and network failures are results the model sees.
func (s *Server) transportError(ctx, cctx context.Context, what string, err error) (*tools.Result, error) {
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if errors.Is(cctx.Err(), context.DeadlineExceeded) {
		return tools.ErrorResult(fmt.Sprintf("%s timed out after %s", what, s.opts.Timeout)), nil
	}
	return tools.ErrorResult(fmt.Sprintf("%s failed: %v", what, unwrapURLError(err))), nil
}

// readLimited reads at most limit bytes and reports whether there was more.
func readLimited(r io.Reader, limit int64) ([]byte, bool, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(b)) > limit {
		return b[:limit], true, nil
	}
	return b, false, nil
}

// snippet returns the start of b as text, at most n bytes, cut at a rune
// boundary.
func snippet(b []byte, n int) string {
	if len(b) <= n {
		return strings.TrimSpace(string(b))
	}
	b = b[:n]
	for len(b) > 0 && !utf8.Valid(b) {
		b = b[:len(b)-1]
	}
	return strings.TrimSpace(string(b)) + " …"
}

// formatResponse turns a 2xx answer into a result: JSON compacted (and as
// Structured when it is an object, as MCP's structuredContent must be),
// images as image content, other text as text.
func formatResponse(resp *http.Response, body []byte, cut bool, limit int64) *tools.Result {
	if len(body) == 0 {
		return tools.TextResult(fmt.Sprintf("HTTP %s (no content)", resp.Status))
	}
	ct := resp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	note := ""
	if cut {
		note = fmt.Sprintf("\n[response cut at %d bytes]", limit)
	}
	if !cut && (isJSONMedia(mt) || mt == "" || strings.HasPrefix(mt, "text/")) && json.Valid(body) {
		var buf bytes.Buffer
		if err := json.Compact(&buf, body); err == nil {
			r := tools.TextResult(buf.String())
			if buf.Len() > 0 && buf.Bytes()[0] == '{' {
				r.Structured = json.RawMessage(buf.Bytes())
			}
			return r
		}
	}
	if strings.HasPrefix(mt, "image/") && !cut {
		return &tools.Result{Content: []tools.Content{{Type: tools.ContentImage, Data: body, MIMEType: mt}}}
	}
	if utf8.Valid(body) || cut && utf8.Valid(trimPartialRune(body)) {
		return tools.TextResult(string(trimPartialRune(body)) + note)
	}
	if mt == "" {
		mt = "application/octet-stream"
	}
	return tools.TextResult(fmt.Sprintf("binary response: %d bytes of %s%s", len(body), mt, note))
}

// trimPartialRune drops a rune cut in half at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		if utf8.Valid(b) {
			return b
		}
		b = b[:len(b)-1]
	}
	return b
}
