package sqlstore

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// TestJournalLineRoundTrip: encodeLine writes by hand what encoding/json
// must read back, for every byte a tool, a model or a user name can put
// in a record. encoding/json is the reference: each line is read by it,
// and each string must come back as json.Marshal would have kept it.
func TestJournalLineRoundTrip(t *testing.T) {
	odd := []string{
		"", "plain", `quote " and \ backslash`, "nl\nrt\rtab\t", "nul\x00bel\x07esc\x1b\x7f",
		"\xff\xfe invalid", "é日本語🙂", "\u2028\u2029", "half \xe6\x97", "</script>&<>",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		odd = append(odd, string(b))
	}
	for _, s := range odd {
		r := store.AuditRecord{
			ID: "id-" + s, Time: time.UnixMicro(1795766070123456).UTC(), User: s, UserID: s, ConversationID: s, Agent: s,
			RunID: s, CallID: s, Tool: "t" + s, Server: s, Arguments: json.RawMessage(s), Approval: store.AuditApproval(s),
		}
		line := encodeLine(nil, &r)
		if line[0] != '\n' || strings.Contains(string(line[1:]), "\n") {
			t.Fatalf("line for %q is not one line: %q", s, line)
		}
		got, ok := decodeLine(line[1:])
		if !ok {
			t.Fatalf("line for %q does not decode: %q", s, line)
		}
		kept := func(v string) string { // what json.Marshal keeps of v
			js, _ := json.Marshal(v)
			var back string
			_ = json.Unmarshal(js, &back)
			return back
		}
		k := kept(s)
		want := store.AuditRecord{
			ID: kept("id-" + s), Time: r.Time, User: k, UserID: k, ConversationID: k, Agent: k, RunID: k, CallID: k,
			Tool: kept("t" + s), Server: k, Arguments: rawBytes([]byte(s)), Approval: store.AuditApproval(k), Outcome: store.OutcomeRunning,
		}
		if got.ID != want.ID || !got.Time.Equal(want.Time) || got.User != want.User || got.UserID != want.UserID ||
			got.ConversationID != want.ConversationID || got.Agent != want.Agent || got.RunID != want.RunID ||
			got.CallID != want.CallID || got.Tool != want.Tool || got.Server != want.Server ||
			string(got.Arguments) != string(want.Arguments) || got.Approval != want.Approval || got.Outcome != want.Outcome {
			t.Fatalf("for %q\n got %+v\nwant %+v", s, got, want)
		}
	}
}

func BenchmarkEncodeLine(b *testing.B) {
	r := store.AuditRecord{
		ID: store.NewID(), Time: time.Now(), User: "alice", UserID: store.NewID(), Tool: "everything__echo",
		Server: "everything", Arguments: json.RawMessage(`{"message":"hello"}`), Approval: store.AuditAutoApproved,
	}
	var buf []byte
	for b.Loop() {
		buf = encodeLine(buf[:0], &r)
	}
}
