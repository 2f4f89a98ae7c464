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
	if r.Method != http.MethodPost || ss == nil || !jsonPost(r) {
		return false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxDirectBody+1))
	// Whatever happens next, the SDK may need the body as it came.
	r.Body = putBack{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil || len(body) > maxDirectBody || !bytes.Contains(body, []byte(`"tools/call"`)) {
		return false
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
	if json.Unmarshal(body, &msg) != nil || msg.JSONRPC != "2.0" || msg.Method != "tools/call" || msg.Params == nil ||
		!plainID(msg.ID) || len(msg.Params.InputResponses) > 0 || len(msg.Params.RequestState) > 0 {
		return false
	}
	if _, ok := msg.Params.Meta["progressToken"]; ok {
		return false
	}
	e, ok := s.reg.Lookup(msg.Params.Name)
	if !ok || s.opts.Policy(e) != ActionAllow {
		return false // the SDK path says "unknown tool", or asks
	}
	args := msg.Params.Arguments
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = json.RawMessage("{}") // as the SDK passes a call without arguments
	}
	req := &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: msg.Params.Name, Arguments: args}}
	res, err := s.callTool(r.Context(), req)
	answer := struct {
		JSONRPC string              `json:"jsonrpc"`
		ID      json.RawMessage     `json:"id"`
		Result  *mcp.CallToolResult `json:"result,omitempty"`
		Error   *jsonrpc.Error      `json:"error,omitempty"`
	}{JSONRPC: "2.0", ID: msg.ID, Result: res}
	if err != nil {
		var je *jsonrpc.Error
		if !errors.As(err, &je) {
			je = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		answer.Result, answer.Error = nil, je
	}
	out, err := json.Marshal(answer)
	if err != nil {
		out, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{
			"code": jsonrpc.CodeInternalError, "message": "encoding the result of " + msg.Params.Name + " failed: " + err.Error(),
		}})
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Mcp-Session-Id", ss.ID())
	_, _ = w.Write(out) // the client is gone if this fails; the audit has the outcome
	return true
}

// jsonPost reports whether r is a POST the SDK would accept: a JSON body,
// and an Accept header naming both JSON and event streams.
func jsonPost(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return false
	}
	var jsonOK, streamOK bool
	for _, v := range r.Header.Values("Accept") {
		for _, tok := range strings.Split(v, ",") {
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
func plainID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
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

// putBack reads from one reader and closes another: a body partly read
// and put back in front of the rest.
type putBack struct {
	io.Reader
	io.Closer
}
