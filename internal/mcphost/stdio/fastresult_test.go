package stdio

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// fastResultLines are answers as servers write them: the TypeScript SDK
// puts result before jsonrpc and id, the Go SDK after; the Python SDK adds
// structuredContent and isError; and the shapes the fast path must refuse
// or get right (escapes, other scripts, invalid UTF-8, keys spelled
// another way, duplicates).
var fastResultLines = []string{
	`{"result":{"content":[{"type":"text","text":"Echo: hello"}]},"jsonrpc":"2.0","id":"sb-1"}`,
	`{"jsonrpc":"2.0","id":"sb-2","result":{"content":[{"type":"text","text":"Echo: hello"}]}}`,
	`{"jsonrpc":"2.0","id":"sb-3","result":{"content":[{"type":"text","text":"42"}],"structuredContent":{"result":42},"isError":false}}`,
	`{"jsonrpc":"2.0","id":"sb-4","result":{"content":[{"type":"text","text":"no such file"}],"isError":true}}`,
	`{"jsonrpc":"2.0","id":"sb-5","result":{"content":[]}}`,
	`{"jsonrpc":"2.0","id":"sb-6","result":{}}`,
	`{"jsonrpc":"2.0","id":"sb-7","result":{"content":[{"type":"text","text":"line one\nline \"two\"\t\u00e9\ud83d\ude00"}]}}`,
	`{"jsonrpc":"2.0","id":"sb-8","result":{"content":[{"type":"text","text":"grüße, 世界"}]}}`,
	"{\"jsonrpc\":\"2.0\",\"id\":\"sb-9\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"bad \xff\xfe utf-8\"}]}}",
	"{\"jsonrpc\":\"2.0\",\"id\":\"sb-10\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"a raw\ttab\"}]}}",
	`{"jsonrpc":"2.0","id":"sb-11","result":{"content":[{"text":"text first","type":"text"},{"type":"text","text":""},{"type":"text"}]}}`,
	`{"jsonrpc":"2.0","id":"sb-12","result":{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"}]}}`,
	`{"jsonrpc":"2.0","id":"sb-13","result":{"content":[{"type":"text","text":"x","annotations":{"audience":["user"]}}]}}`,
	`{"jsonrpc":"2.0","id":"sb-14","result":{"content":[{"type":"text","text":"x"}],"_meta":{"k":1}}}`,
	`{"jsonrpc":"2.0","id":"sb-15","result":{"Content":[{"type":"text","text":"x"}]}}`,
	`{"jsonrpc":"2.0","id":"sb-16","result":{"content":[{"TYPE":"text","text":"x"}]}}`,
	`{"jsonrpc":"2.0","id":"sb-17","result":{"content":[{"type":"text","text":"x"}],"content":[]}}`,
	`{"jsonrpc":"2.0","id":"sb-18","result":{"content":[{"type":"text","text":"a"}]},"result":{"isError":true}}`,
	`{"jsonrpc":"2.0","id":"sb-19","result":{"content":[{"type":"text","text":"x"}],"isError":tru}}`,
	`{"jsonrpc":"2.0","id":"sb-20","result":{"content":[{"type":"text","text":"x"}],"isError":true,"isError":false}}`,
	`{"jsonrpc":"2.0","id":"sb-21","result":{"content":[{"type":"text","text":"x"},]}}`,
	`{"jsonrpc":"2.0","id":"sb-22","result":{"content":[{"type":"text","text":"x"}]} trailing`,
	`{"jsonrpc":"2.0","id":"sb-23","result":{"content":[{"type":"text","text":"x"}]},"error":{"code":-32603,"message":"boom"}}`,
	`{"jsonrpc":"2.0","id":"sb-24","result":{"content":null}}`,
	`{"jsonrpc":"2.0","id":"sb-25","result":{"content":[{"type":"text","text":null}]}}`,
	`{"jsonrpc":"2.0","id":"sb-26","result":{"content":[{"type":"text","text":"bad \x escape"}]}}`,
	`{"jsonrpc":"2.0","id":"sb-27","result":{"content":[{"type":"t\u0065xt","text":"x"}]}}`,
	`{"jsonrpc":"2.0","id":"sb-28","result":{"resultType":"complete","content":[{"type":"text","text":"x"}]}}`,
	`  { "jsonrpc" : "2.0" , "id" : "sb-29" , "result" : { "isError" : false , "content" : [ { "type" : "text" , "text" : "spaced" } ] } }  `,
	`{"jsonrpc":"2.0","id":"sb-30","result":{"content":[{"type":"text","text":"x"}"]}}`,
	`{"jsonrpc":"2.0","id":"sb-31","result":{"content":{"type":"text","text":"x"}}}`,
	`{"jsonrpc":"2.0","id":"sb-32","result":{"content":[{"type":"text","text":"\ud800 lone surrogate"}]}}`,
}

// stdResult is what deliver makes of line without the fast path.
func stdResult(line []byte) (*tools.Result, bool) {
	var r wireResponse
	if json.Unmarshal(line, &r) != nil || r.Error != nil || r.Result == nil || r.Result.ResultType == "input_required" {
		return nil, false
	}
	return r.Result.toResult(), true
}

// checkFastResult fails when fastResult accepts line and encoding/json
// reads it otherwise.
func checkFastResult(t *testing.T, line []byte) bool {
	t.Helper()
	got, ok := fastResult(line)
	if !ok {
		return false
	}
	want, wok := stdResult(line)
	if !wok {
		t.Fatalf("fastResult accepted %q, which encoding/json refuses or reads as no result", line)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fastResult(%q)\n = %#v\nencoding/json: %#v", line, got, want)
	}
	return true
}

func TestFastResultAsEncodingJSON(t *testing.T) {
	accepted := 0
	for _, l := range fastResultLines {
		if checkFastResult(t, []byte(l)) {
			accepted++
		}
	}
	// The common shapes take the fast path; the test would pass vacuously
	// if none did.
	for _, l := range fastResultLines[:2] {
		if _, ok := fastResult([]byte(l)); !ok {
			t.Errorf("fastResult refused %s", l)
		}
	}
	if accepted < 8 {
		t.Errorf("fastResult accepted %d of the lines, want at least 8", accepted)
	}
	// Mutations of the lines: every byte replaced, dropped or doubled at
	// random places, many times over.
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("{}[]\":,\\ tnrufalse0123456789-eE.+\x00\x1f\xc3\xa9\xff")
	mutated := 0
	for range 200_000 {
		b := []byte(fastResultLines[rng.IntN(len(fastResultLines))])
		for range 1 + rng.IntN(3) {
			i := rng.IntN(len(b))
			switch rng.IntN(3) {
			case 0:
				b[i] = alphabet[rng.IntN(len(alphabet))]
			case 1:
				b = append(b[:i], b[i+1:]...)
			default:
				b = append(b[:i+1], b[i:]...)
			}
		}
		if checkFastResult(t, b) {
			mutated++
		}
	}
	t.Logf("%d of 200000 mutated lines took the fast path", mutated)
	if mutated == 0 {
		t.Error("no mutated line took the fast path: the mutations test nothing")
	}
}

// FuzzFastResult holds fastResult to encoding/json on any input.
func FuzzFastResult(f *testing.F) {
	for _, l := range fastResultLines {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line string) {
		checkFastResult(t, []byte(line))
	})
}

func BenchmarkDeliverDecode(b *testing.B) {
	line := []byte(fastResultLines[0])
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := fastResult(line); !ok {
				b.Fatal("refused")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := stdResult(line); !ok {
				b.Fatal("refused")
			}
		}
	})
}
