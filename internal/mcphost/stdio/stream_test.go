package stdio

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

func TestScanFrame(t *testing.T) {
	tests := []struct {
		name             string
		in               string
		ok, rpc, isResp  bool
		id, method, parm string
	}{
		{name: "request", in: `{"jsonrpc":"2.0","id":7,"method":"roots/list","params":{}}`, ok: true, rpc: true, id: "7", method: `"roots/list"`, parm: "{}"},
		{name: "notification", in: ` {"method":"notifications/progress","jsonrpc":"2.0","params":{"progressToken":"sb-1","progress":1}} `, ok: true, rpc: true, method: `"notifications/progress"`, parm: `{"progressToken":"sb-1","progress":1}`},
		{name: "response", in: `{"jsonrpc":"2.0","id":"sb-12","result":{"content":[{"type":"text","text":"a \"}\" b"}]}}`, ok: true, rpc: true, isResp: true, id: `"sb-12"`},
		{name: "error response", in: `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no"}}`, ok: true, rpc: true, isResp: true, id: "3"},
		{name: "escaped backslash before quote", in: `{"jsonrpc":"2.0","id":"a\\","result":{}}`, ok: true, rpc: true, isResp: true, id: `"a\\"`},
		{name: "banner", in: `Server running on stdio`, ok: false},
		{name: "json log line", in: `{"level":"info","msg":"started"}`, ok: true},
		{name: "wrong version", in: `{"jsonrpc":"1.0","id":1,"result":{}}`, ok: true, id: "1"},
		{name: "trailing garbage", in: `{"jsonrpc":"2.0","id":1,"result":{}} x`, ok: false},
		{name: "unterminated", in: `{"jsonrpc":"2.0","id":1,"result":{"a":"b`, ok: false},
		{name: "no colon", in: `{"jsonrpc" "2.0"}`, ok: false},
		{name: "empty object", in: `{}`, ok: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ok := scanFrame([]byte(tt.in), false)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if f.isJSONRPC() != tt.rpc || tt.rpc && f.isResponse() != tt.isResp {
				t.Errorf("isJSONRPC %v isResponse %v, want %v %v", f.isJSONRPC(), f.isResponse(), tt.rpc, tt.isResp)
			}
			if string(f.id) != tt.id || string(f.method) != tt.method || string(f.params) != tt.parm {
				t.Errorf("id %s method %s params %s; want %s %s %s", f.id, f.method, f.params, tt.id, tt.method, tt.parm)
			}
		})
	}
}

func TestScanFramePrefix(t *testing.T) {
	full := `{"jsonrpc":"2.0","id":"sb-4","result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 100) + `"}]}}`
	for _, n := range []int{10, 25, 40, 60, len(full) - 1} {
		f, ok := scanFrame([]byte(full[:n]), true)
		if !ok || !f.partial {
			t.Fatalf("prefix of %d bytes: ok %v partial %v", n, ok, f.partial)
		}
		if n >= 32 && string(f.id) != `"sb-4"` {
			t.Errorf("prefix of %d bytes: id %q, want it found", n, f.id)
		}
	}
	if _, ok := scanFrame([]byte("Welcome to the server, it is "), true); ok {
		t.Error("a banner prefix scanned as JSON")
	}
}

func TestSplitBatch(t *testing.T) {
	got, ok := splitBatch([]byte(` [{"jsonrpc":"2.0","method":"a"}, {"jsonrpc":"2.0","id":1,"result":{"x":[1,2]}}] `))
	if !ok || len(got) != 2 || string(got[1]) != `{"jsonrpc":"2.0","id":1,"result":{"x":[1,2]}}` {
		t.Errorf("splitBatch = %q, %v", got, ok)
	}
	for _, bad := range []string{`[]`, `[1,2]`, `[{"a":1}`, `[{"a":1}] x`, `{"a":1}`} {
		if _, ok := splitBatch([]byte(bad)); ok {
			t.Errorf("splitBatch(%s) accepted", bad)
		}
	}
}

func TestCallIDs(t *testing.T) {
	for _, id := range []uint64{1, 42, 1<<63 + 5} {
		got, ok := parseCallID(appendCallID(nil, id))
		if !ok || got != id {
			t.Errorf("round trip of %d: %d, %v", id, got, ok)
		}
	}
	for _, bad := range []string{`7`, `"7"`, `"sb-"`, `"sb-1x"`, `"xb-1"`, `"sb-99999999999999999999999"`, `sb-1`} {
		if _, ok := parseCallID([]byte(bad)); ok {
			t.Errorf("parseCallID(%s) accepted", bad)
		}
	}
}

// responses are tools/call responses of every shape the decoders handle.
var responses = []string{
	`{"jsonrpc":"2.0","id":"sb-1","result":{"content":[{"type":"text","text":"Echo: hello"}]}}`,
	`{"jsonrpc":"2.0","id":"sb-1","result":{"content":[{"type":"text","text":"quote \" backslash \\ slash \/ ctl \b\f\n\r\t unicode \u00e9\u4e2d pair \ud83d\ude00 lone \ud800 x \udc00 end"}],"isError":true}}`,
	`{"id":"sb-1","result":{"isError":false,"structuredContent":{"sum":5,"list":[1,"two",{"three":null}],"s":"a\"}"},"content":[{"type":"text","text":"{\"sum\":5}"}]},"jsonrpc":"2.0"}`,
	`{"jsonrpc":"2.0","id":"sb-1","result":{"content":[{"type":"image","data":"iVBORw==","mimeType":"image/png"},{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"},{"type":"resource","resource":{"uri":"test://doc","mimeType":"text/plain","text":"doc body"}},{"type":"resource","resource":{"uri":"test://bin","blob":"AAEC"}},{"type":"resource_link","uri":"test://other","name":"other","mimeType":"text/plain","_meta":{"x":[{}]}},{"type":"tool_use","id":"t","name":"n","input":{}}]}}`,
	`{"jsonrpc":"2.0","id":"sb-1","result":{"content":[],"structuredContent":null,"_meta":{"k":"v"}}}`,
	`{"jsonrpc":"2.0","id":"sb-1","result":{"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"}}}}`,
	`{"jsonrpc":"2.0","id":"sb-1","error":{"code":-32602,"message":"Unknown tool: nope","data":{"a":1}}}`,
	`{"jsonrpc":"2.0","id":"sb-1","result":{"content":[{"type":"text","text":"` + strings.Repeat(`abc\n\"`, 3000) + `"}]}}   `,
}

// decodeWhole decodes a response the way a message that fits in the line
// buffer is decoded.
func decodeWhole(t *testing.T, msg string) *wireResponse {
	t.Helper()
	var r wireResponse
	if err := json.Unmarshal([]byte(msg), &r); err != nil {
		t.Fatalf("encoding/json rejects %s: %v", msg, err)
	}
	return &r
}

// decodeStream decodes msg (one line, followed by another) with a line
// buffer of size bytes, and checks that the reader stops at the next line.
func decodeStream(msg string, size int, out *tools.OutputStore) (*wireResponse, error) {
	lr := newLineReader(strings.NewReader(msg+"\n"+`{"next":1}`+"\n"), make([]byte, size))
	prefix, full, err := lr.next()
	if err != nil {
		return nil, err
	}
	if full { // short enough to fit: stream it all the same
		lr = newLineReader(strings.NewReader(msg+"\n"+`{"next":1}`+"\n"), make([]byte, size))
		_ = prefix
	}
	r, _, err := streamResult(&jstream{lr: lr, limit: 1 << 30}, out, "tool")
	next, _, nerr := lr.next()
	if nerr != nil || string(next) != `{"next":1}` {
		return nil, errors.New("the reader did not stop at the end of the message: next line " + string(next))
	}
	return r, err
}

func results(r *wireResponse) any {
	if r.Result == nil {
		return r.Error
	}
	return []any{r.Result.toResult(), r.Result.ResultType}
}

// TestStreamMatchesWholeDecode checks that the streaming decoder, with
// line buffers small enough to cut every token, gives what encoding/json
// gives for the whole message.
func TestStreamMatchesWholeDecode(t *testing.T) {
	for i, msg := range responses {
		want := results(decodeWhole(t, msg))
		for _, size := range []int{16, 17, 23, 64, 4096} {
			r, err := decodeStream(msg, size, nil)
			if err != nil {
				t.Fatalf("response %d, buffer %d: %v", i, size, err)
			}
			if diff := cmp.Diff(want, results(r)); diff != "" {
				t.Errorf("response %d, buffer %d: stream mismatch (-whole +stream):\n%s", i, size, diff)
			}
		}
	}
}

func TestStreamSpillsLongTexts(t *testing.T) {
	dir := t.TempDir()
	text := strings.Repeat("line é \"quoted\"\n", 1000)
	enc, _ := json.Marshal(text)
	msg := `{"jsonrpc":"2.0","id":"sb-1","result":{"content":[{"type":"text","text":` + string(enc) + `}],"structuredContent":{"content":` + string(enc) + `}}}`
	r, err := decodeStream(msg, 64, tools.NewOutputStore(dir, 100, nil))
	if err != nil {
		t.Fatal(err)
	}
	res := r.Result.toResult()
	st := res.Content[0].Stored
	if st == nil || st.Size != int64(len(text)) || !strings.HasPrefix(text, st.Head) || !strings.HasSuffix(text, st.Tail) {
		t.Fatalf("stored text = %+v, want %d bytes with head and tail", st, len(text))
	}
	if b, err := os.ReadFile(filepath.Join(dir, st.ID+".txt")); err != nil || string(b) != text {
		t.Errorf("stored file: %d bytes, %v; want the decoded text", len(b), err)
	}
	sst := res.StoredStructured
	if sst == nil || res.Structured != nil {
		t.Fatalf("structured content: %+v / %s, want it stored", sst, res.Structured)
	}
	b, err := os.ReadFile(filepath.Join(dir, sst.ID+".txt"))
	var decoded struct{ Content string }
	if err != nil || json.Unmarshal(b, &decoded) != nil || decoded.Content != text {
		t.Errorf("stored structured content does not decode to the text: %v", err)
	}
}

func TestStreamErrors(t *testing.T) {
	tests := []struct {
		name  string
		msg   string
		limit int64
		want  error
	}{
		{"truncated", `{"jsonrpc":"2.0","id":"sb-1","result":{"content":[{"type":"text","text":"abc`, 1 << 20, errEndOfMessage},
		{"not json", `{"jsonrpc":"2.0","id":"sb-1","result":{"content":[{"type":"text","text":"abc"]}}`, 1 << 20, errSyntax},
		{"bad escape", `{"jsonrpc":"2.0","id":"sb-1","result":{"content":[{"type":"text","text":"a\qb"}]}}`, 1 << 20, errSyntax},
		{"data after", `{"jsonrpc":"2.0","id":"sb-1","result":{}} {}`, 1 << 20, errSyntax},
		{"over the cap", `{"jsonrpc":"2.0","id":"sb-1","result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 500) + `"}]}}`, 200, errTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			lr := newLineReader(strings.NewReader(tt.msg+"\n"+`{"next":1}`+"\n"), make([]byte, 32))
			_, _, err := streamResult(&jstream{lr: lr, limit: tt.limit}, tools.NewOutputStore(dir, 10, nil), "tool")
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if next, _, err := lr.next(); err != nil || string(next) != `{"next":1}` {
				t.Errorf("after the error the reader is not at the next line: %q, %v", next, err)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("a failed message left %d output files", len(ents))
			}
		})
	}
}

func TestLineReader(t *testing.T) {
	in := "one\r\n\ntwo\n" + strings.Repeat("z", 40) + "\nlast"
	lr := newLineReader(strings.NewReader(in), make([]byte, 16))
	var got []string
	for {
		line, full, err := lr.next()
		if err != nil {
			break
		}
		if !full {
			rest, err := lr.readLine(bytes.Clone(line[:0]), 1<<10)
			if err != nil {
				t.Fatal(err)
			}
			line = rest
		}
		got = append(got, string(line))
	}
	want := []string{"one\r", "", "two", strings.Repeat("z", 40), "last"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines mismatch (-want +got):\n%s", diff)
	}
}

var keyRE = regexp.MustCompile(`"([^"\\]*)"\s*:`)

// foldedKey reports whether msg has a key that matches a key of the wire
// types only without regard to case, which encoding/json accepts and MCP
// does not.
func foldedKey(msg string) bool {
	known := []string{
		"content", "type", "text", "data", "mimeType", "uri", "name", "resource", "blob",
		"structuredContent", "isError", "resultType", "result", "error", "code", "message",
	}
	for _, m := range keyRE.FindAllStringSubmatch(msg, -1) {
		for _, k := range known {
			if strings.EqualFold(m[1], k) && m[1] != k {
				return true
			}
		}
	}
	return false
}

// FuzzStreamResult checks that the streaming decoder never panics or runs
// past its line, and agrees with encoding/json whenever both accept a message.
func FuzzStreamResult(f *testing.F) {
	for _, r := range responses {
		f.Add(r)
	}
	f.Add(`{"jsonrpc":"2.0","id":"sb-1","result":{"content":[{"type":"text","text":"\u`)
	f.Fuzz(func(t *testing.T, msg string) {
		if strings.ContainsAny(msg, "\n") {
			return
		}
		r, err := decodeStream(msg, 16, nil)
		if err != nil {
			if strings.Contains(err.Error(), "did not stop") {
				t.Fatal(err)
			}
			return
		}
		var whole wireResponse
		if json.Unmarshal([]byte(msg), &whole) != nil || whole.Result == nil || r.Result == nil {
			return
		}
		if !json.Valid([]byte(msg)) || strings.Contains(msg, `\u`) || foldedKey(msg) || !utf8.ValidString(msg) {
			// encoding/json matches keys without regard to case, where MCP
			// (and the stream) does not, and replaces invalid UTF-8, which
			// the stream passes on as it came (into a stored output byte
			// for byte); escapes in keys are not compared either.
			return
		}
		if diff := cmp.Diff(results(&whole), results(r)); diff != "" {
			t.Errorf("stream mismatch (-whole +stream):\n%s", diff)
		}
	})
}
