package mcpserve

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// maxDirectBody is the largest tools/call request the direct path reads;
// larger ones go to the SDK, which streams them.
const maxDirectBody = 1 << 20

// directCall answers a POST on the initialized HTTP session of rec that is
// one tools/call needing nothing from the SDK's session: no progress
// token, no approval question (the policy allows the tool), no input
// responses. Such a call, the common one, runs [Server.callTool] directly
// and gets a JSON answer, without the SDK's per-request session machinery
// and JSON decoding, which profiling showed cost more than the call itself
// (docs/BENCHMARKS.md, "MCP gateway"). Everything else, and every request
// the direct path is unsure of, goes to the SDK: directCall reports whether
// it answered, and when it did not, r.Body reads as it came.
//
// Cancellation: the call ends when the client closes the request, which is
// how Streamable HTTP clients cancel; notifications/cancelled naming a
// direct call finds no SDK request and is ignored, which the protocol
// allows.
func (s *Server) directCall(w http.ResponseWriter, r *http.Request, rec *sessionRec) bool {
	ss := rec.session.Load()
	if ss == nil {
		return false
	}
	dr, ok := s.readDirect(r, nil)
	if !ok {
		return false
	}
	s.answerDirect(w, r, dr, ss)
	return true
}

// directStateless is directCall for a request on protocol 2026-07-28,
// which has no session: the request's _meta must name the same version as
// its header, and its Mcp-Method and Mcp-Name headers must match the body,
// as the SDK checks; anything else goes to the SDK.
func (s *Server) directStateless(w http.ResponseWriter, r *http.Request) bool {
	version := r.Header.Get("Mcp-Protocol-Version")
	if version != statelessVersion || r.Header.Get("Mcp-Method") != "tools/call" {
		return false
	}
	dr, ok := s.readDirect(r, func(dr directRequest) bool {
		return r.Header.Get("Mcp-Name") == dr.name && string(dr.meta["io.modelcontextprotocol/protocolVersion"]) == `"`+version+`"`
	})
	if !ok {
		return false
	}
	s.answerDirect(w, r, dr, nil)
	return true
}

// directRequest is a tools/call the direct path may serve.
type directRequest struct {
	id   json.RawMessage
	name string
	args json.RawMessage
	meta map[string]json.RawMessage
}

// readDirect reads r's body and reports whether it is a tools/call the
// direct path may serve (and, when accept is given, that accept takes).
// When it reports false, r.Body reads as it came.
func (s *Server) readDirect(r *http.Request, accept func(directRequest) bool) (directRequest, bool) {
	if r.Method != http.MethodPost || !jsonPost(r) {
		return directRequest{}, false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxDirectBody+1))
	served := false
	defer func() {
		// Put back what was read for the SDK, unless the direct path
		// takes the request (then nobody reads the body again).
		if !served {
			r.Body = putBack{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		}
	}()
	if err != nil || len(body) > maxDirectBody || !bytes.Contains(body, []byte(`"tools/call"`)) {
		return directRequest{}, false
	}
	var msg struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  *struct {
			Name           string                     `json:"name"`
			Arguments      json.RawMessage            `json:"arguments"`
			Meta           map[string]json.RawMessage `json:"_meta"`
			InputResponses json.RawMessage            `json:"inputResponses"`
			RequestState   json.RawMessage            `json:"requestState"`
		} `json:"params"`
	}
	if !decodeAsSDK(body, &msg) || msg.JSONRPC != "2.0" || msg.Method != "tools/call" || msg.Params == nil ||
		!plainID(msg.ID) || len(msg.Params.InputResponses) > 0 || len(msg.Params.RequestState) > 0 {
		return directRequest{}, false
	}
	if _, ok := msg.Params.Meta["progressToken"]; ok {
		return directRequest{}, false
	}
	e, ok := s.reg.Lookup(msg.Params.Name)
	if !ok || s.gate.Decide(e) != ActionAllow {
		return directRequest{}, false // the SDK path says "unknown tool", or asks
	}
	args := msg.Params.Arguments
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = json.RawMessage("{}") // as the SDK passes a call without arguments
	}
	dr := directRequest{id: msg.ID, name: msg.Params.Name, args: args, meta: msg.Params.Meta}
	served = accept == nil || accept(dr)
	return dr, served
}

// answerDirect runs dr through [Server.call] on session ss (nil for a
// stateless request) and writes the JSON-RPC answer.
func (s *Server) answerDirect(w http.ResponseWriter, r *http.Request, dr directRequest, ss *mcp.ServerSession) {
	req := &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: dr.name, Arguments: dr.args}}
	cres, res, err := s.call(r.Context(), req, nil)
	var out []byte
	if err == nil {
		out, err = s.resultAnswer(dr.id, ss, cres, res)
	}
	if err != nil {
		var je *jsonrpc.Error
		if !errors.As(err, &je) {
			je = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "calling " + dr.name + ": " + err.Error()}
		}
		out = errorAnswer(dr.id, je)
	}
	w.Header().Set("Content-Type", "application/json")
	if ss != nil {
		w.Header().Set("Mcp-Session-Id", ss.ID())
	}
	_, _ = w.Write(out) // the client is gone if this fails; the audit has the outcome
}

// resultAnswer is the JSON-RPC answer of a call on session ss (nil for a
// stateless request) that returned the catalogue's result cres, or the
// SDK's result res when the call did not run (a question, a refusal). A
// text result on a session is written with its envelope in one buffer;
// anything else is encoded and wrapped (wrapResult).
func (s *Server) resultAnswer(id []byte, ss *mcp.ServerSession, cres *tools.Result, res *mcp.CallToolResult) ([]byte, error) {
	var (
		result []byte
		ok     bool
	)
	if cres != nil && ss != nil {
		if b, ok := appendTextResult(answerHead(id, textResultSize(cres)), cres); ok {
			return append(b, '}'), nil
		}
	}
	if cres != nil {
		if result, ok = appendTextResult(make([]byte, 0, textResultSize(cres)), cres); !ok {
			res = mcpResult(cres)
		}
	}
	if !ok {
		var err error
		if result, err = json.Marshal(res); err != nil {
			return nil, err
		}
	}
	if ss == nil {
		result = s.completeResult(result)
	}
	return wrapResult(id, result), nil
}

// answerHead is the start of a JSON-RPC response with id (a request ID
// the direct path accepted: a JSON string or number), up to its result,
// in a buffer with room for a result of about room bytes.
func answerHead(id []byte, room int) []byte {
	var b bytes.Buffer
	b.Grow(len(`{"jsonrpc":"2.0","id":,"result":}`) + len(id) + room)
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	json.HTMLEscape(&b, id)
	b.WriteString(`,"result":`)
	return b.Bytes()
}

// wrapResult is the JSON-RPC response with id and result (encoding/json's
// output). It is assembled around them rather than encoded again:
// encoding a json.RawMessage re-validates and compacts it, a second scan
// of every result. What encoding/json adds to a RawMessage, escaping of
// <, > and &, is kept with json.HTMLEscape, so the bytes are the same.
func wrapResult(id, result []byte) []byte {
	b := bytes.NewBuffer(answerHead(id, len(result)+16))
	json.HTMLEscape(b, result)
	b.WriteByte('}')
	return b.Bytes()
}

// errorAnswer is the JSON-RPC error response with id.
func errorAnswer(id json.RawMessage, je *jsonrpc.Error) []byte {
	out, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, je})
	if err != nil {
		out, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
			"code": jsonrpc.CodeInternalError, "message": "encoding an error answer failed: " + err.Error(),
		}})
	}
	return out
}

// completeResult adds to a result object what protocol 2026-07-28 asks of
// every result, as the SDK's stateless path does: resultType "complete"
// and the server's info in _meta. The gateway's results carry no _meta of
// their own.
func (s *Server) completeResult(obj []byte) []byte {
	info, _ := json.Marshal(map[string]string{"name": s.opts.Name, "version": s.opts.Version})
	head := `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + string(info) + `}`
	rest := bytes.TrimPrefix(bytes.TrimSpace(obj), []byte("{"))
	if !bytes.HasPrefix(bytes.TrimSpace(rest), []byte("}")) {
		head += ","
	}
	return append([]byte(head), rest...)
}

// maxSDKDepth is the deepest nesting of objects and arrays go-sdk accepts
// in a message (its internal/json's defaultMaxDepth).
const maxSDKDepth = 1000

// decodeAsSDK decodes a request body into v as go-sdk reads it, so that
// the direct path and the SDK never read one body two ways: keys match
// struct fields exactly (encoding/json would also take "METHOD" for
// "method", and the last of the two would win), with the same decoder
// (segmentio's, case-sensitive) and the same depth limit. It reports
// whether the body is one JSON value that decoded; anything else goes to
// the SDK, which answers it.
func decodeAsSDK(body []byte, v any) bool {
	if tools.JSONDeeperThan(body, maxSDKDepth) {
		return false
	}
	rest, err := segjson.Parse(body, v, segjson.DontMatchCaseInsensitiveStructFields)
	return err == nil && len(bytes.TrimSpace(rest)) == 0
}

// jsonPost reports whether r is a POST the SDK would accept: a JSON body,
// and an Accept header naming both JSON and event streams.
func jsonPost(r *http.Request) bool {
	if ct := r.Header.Get("Content-Type"); ct != "application/json" { // what clients send; anything else is parsed
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != "application/json" {
			return false
		}
	}
	var jsonOK, streamOK bool
	for _, v := range r.Header.Values("Accept") {
		for tok := range strings.SplitSeq(v, ",") {
			base, _, _ := strings.Cut(tok, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK && streamOK
}

// plainID reports whether id is a JSON-RPC request ID: a string or a number.
// The IDs clients send (small integers, short strings of letters, digits
// and dashes) are checked by hand; anything else by encoding/json.
func plainID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	if simpleID(id) {
		return true
	}
	switch id[0] {
	case '"':
		var s string
		return json.Unmarshal(id, &s) == nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		var n json.Number
		return json.Unmarshal(id, &n) == nil
	}
	return false
}

// simpleID reports whether id is an integer without a leading zero, or a
// string of ASCII letters, digits, '-' and '_': JSON that needs no decoder
// to check.
func simpleID(id []byte) bool {
	if id[0] == '"' {
		if len(id) < 2 || id[len(id)-1] != '"' {
			return false
		}
		for _, c := range id[1 : len(id)-1] {
			switch {
			case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_':
			default:
				return false
			}
		}
		return true
	}
	digits := id
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 1 && digits[0] == '0' {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// putBack reads from one reader and closes another: a body partly read
// and put back in front of the rest.
type putBack struct {
	io.Reader
	io.Closer
}
