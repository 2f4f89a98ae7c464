package storetest

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/observe"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// Bench measures the writes on an agent's hot path: appending messages and
// auditing tool calls, serially and from parallel goroutines. open must
// return a new, empty store; Bench closes it.
func Bench(b *testing.B, open func(b *testing.B) store.Store) {
	args := json.RawMessage(`{"path":"docs/readme.md","offset":0,"limit":200}`)
	msg := store.Message{Message: llm.Message{
		Role:      llm.RoleAssistant,
		Content:   []llm.Part{llm.TextPart("Let me read the file first, then summarise it for you.")},
		ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "files__read_file", Arguments: args}},
	}}

	b.Run("AppendMessage", func(b *testing.B) {
		s := openBench(b, open)
		c, err := s.CreateConversation(b.Context(), store.Conversation{})
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := s.AppendMessages(b.Context(), c.ID, msg); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("AppendMessageParallel", func(b *testing.B) {
		s := openBench(b, open)
		// One conversation per goroutine, as with separate chats.
		b.RunParallel(func(pb *testing.PB) {
			c, err := s.CreateConversation(b.Context(), store.Conversation{})
			if err != nil {
				b.Error(err)
				return
			}
			for pb.Next() {
				if _, err := s.AppendMessages(b.Context(), c.ID, msg); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	// The audit trail's cost per tool call (BeginAudit, then FinishAudit)
	// at 1 and 16 calls in flight, back to back.
	for _, callers := range []int{1, 16} {
		b.Run(fmt.Sprintf("Audit/callers=%d", callers), func(b *testing.B) {
			s := openBench(b, open)
			BenchCallers(b, callers, func() { auditCall(b, s, args, 0) })
		})
	}
	// Authenticating a request by its API key, which /mcp does for every
	// call when users exist.
	for _, callers := range []int{1, 16} {
		b.Run(fmt.Sprintf("UserByKeyHash/callers=%d", callers), func(b *testing.B) {
			s := openBench(b, open)
			u, err := s.CreateUser(b.Context(), store.User{Name: "ann", KeyHash: strings.Repeat("4f", 32), Permissions: []string{"files__*"}})
			if err != nil {
				b.Fatal(err)
			}
			BenchCallers(b, callers, func() {
				if _, err := s.GetUserByKeyHash(b.Context(), u.KeyHash); err != nil {
					b.Error(err)
				}
			})
		})
	}
	// What the store does for one /mcp call when users exist: look the
	// caller's key up, begin the record, finish it after a 1 ms tool.
	b.Run("MCPCall/callers=16", func(b *testing.B) {
		s := openBench(b, open)
		u, err := s.CreateUser(b.Context(), store.User{Name: "ann", KeyHash: strings.Repeat("4f", 32), Permissions: []string{"files__*"}})
		if err != nil {
			b.Fatal(err)
		}
		BenchCallers(b, 16, func() {
			if _, err := s.GetUserByKeyHash(b.Context(), u.KeyHash); err != nil {
				b.Error(err)
				return
			}
			auditCall(b, s, args, time.Millisecond)
		})
	})
	// The same with 1 ms between the two, as a tool that answers in a
	// millisecond (a local stdio server) takes, so that writes arrive
	// spread out as they do from a gateway rather than in lockstep.
	b.Run("AuditAroundCall/callers=16", func(b *testing.B) {
		s := openBench(b, open)
		BenchCallers(b, 16, func() { auditCall(b, s, args, time.Millisecond) })
	})
}

// BenchCallers runs call b.N times in all, from callers goroutines at once
// (as many tool calls in flight), and reports the CPU time of the whole
// process per call: user plus system, every goroutine the store runs
// included, which wall time per call hides when callers overlap.
func BenchCallers(b *testing.B, callers int, call func()) {
	b.ReportAllocs()
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	n := int64(b.N)
	b.ResetTimer()
	cpu0 := observe.ProcessCPU()
	for range callers {
		wg.Go(func() {
			for next.Add(1) <= n {
				call()
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64((observe.ProcessCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

// auditCall does what the agent does around one tool call that takes
// the given time.
func auditCall(b *testing.B, s store.Store, args json.RawMessage, call time.Duration) {
	id, err := s.BeginAudit(b.Context(), store.AuditRecord{
		User: "ann", ConversationID: "c", RunID: "r", CallID: "call_1",
		Tool: "files__read_file", Server: "files", Arguments: args, Approval: store.AuditAutoApproved,
	})
	if err != nil {
		b.Error(err)
		return
	}
	if call > 0 {
		time.Sleep(call)
	}
	if err := s.FinishAudit(b.Context(), id, store.AuditResult{Outcome: store.OutcomeOK, Duration: time.Millisecond, ResultBytes: 512}); err != nil {
		b.Error(err)
	}
}

func openBench(b *testing.B, open func(b *testing.B) store.Store) store.Store {
	s := open(b)
	b.Cleanup(func() { _ = s.Close() })
	return s
}
