package stdio

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// BenchmarkStreamResult decodes an 8 MiB tools/call response as a stream,
// its text (JSON escapes every dozen bytes) and its structured copy going
// to an output store, as a 50 MiB result from server-filesystem does.
func BenchmarkStreamResult(b *testing.B) {
	text := strings.Repeat(`a line of "quoted" text \ with a backslash and e`+"\n", 8<<20/48)
	enc, _ := json.Marshal(text)
	msg := []byte(`{"result":{"content":[{"type":"text","text":` + string(enc) + `}],"structuredContent":{"content":` + string(enc) + `}},"jsonrpc":"2.0","id":"sb-1"}` + "\n")
	store := tools.NewOutputStore(b.TempDir(), 64<<10, nil)
	buf := make([]byte, ReadBufSize)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		lr := newLineReader(bytes.NewReader(msg), buf)
		if _, _, err := lr.next(); err != nil {
			b.Fatal(err)
		}
		r, texts, err := streamResult(&jstream{lr: lr, limit: 1 << 30}, store, "big")
		if err != nil || r.Result == nil {
			b.Fatal(err)
		}
		for _, t := range texts {
			t.Discard()
		}
	}
}
