package mcpserve

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// Questions across replicas (several replicas without sticky sessions, on
// protocol versions before 2026-07-28, where the server asks its client
// with requests of its own):
//
//   - The replica serving a call asks on the call's own POST response
//     stream, which is the client's connection to that replica: the SDK's
//     session where the session was created, or a guest session recreate
//     makes, which has a stateful transport for this.
//   - The client's answer is a new POST, which a balancer may send to any
//     replica. A replica that does not hold the asking session object
//     stores the answer ([store.MCPAnswers]) and announces it on the change
//     feed; the asking replica, which watches for it while it waits
//     (relay.await), takes it and delivers it into its session as if the
//     POST had arrived there.
//   - The SDK numbers a session's requests from 1, and one session may be
//     served at once by its own replica and by guests elsewhere, so a
//     guest's request IDs carry a prefix of its own ("sb…-1"): an answer
//     names the session object that asked. Plain IDs are the SDK session's
//     on the replica that created it.

// relay is the one owner of what relaying answers between replicas needs:
// the store and change feed answers cross, and the guest sessions recreate
// makes (by session object, and by request ID prefix for those that can
// ask). Routing ([routeOf]) decides where a request goes; relay serves the
// answers and questions that cross replicas. Its methods are safe for
// concurrent use.
type relay struct {
	// answers and changes are both set on replicas sharing a session key
	// and a database; either nil means answers stay where they arrive.
	answers store.MCPAnswers
	changes store.Changes
	// shared is set when other replicas may hold this one's sessions.
	shared bool
	owners *sessionOwners
	logger *slog.Logger
	// sdk is the SDK's handler of stateful sessions, which relayed answers
	// for sessions created here are delivered to; set before serving.
	sdk http.Handler

	mu     sync.Mutex
	guests map[*mcp.ServerSession]*guest // guarded by mu
	held   map[string]*guest             // guest prefix -> guest that can ask; guarded by mu
}

func newRelay(answers store.MCPAnswers, changes store.Changes, shared bool, owners *sessionOwners, logger *slog.Logger) *relay {
	return &relay{
		answers: answers, changes: changes, shared: shared, owners: owners, logger: logger,
		guests: make(map[*mcp.ServerSession]*guest), held: make(map[string]*guest),
	}
}

// enabled reports whether answers can travel between replicas.
func (rl *relay) enabled() bool { return rl.answers != nil && rl.changes != nil }

// join records g as the guest served by the session object ss, until the
// returned leave is called (when the guest's one request is served).
func (rl *relay) join(ss *mcp.ServerSession, g *guest) (leave func()) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	rl.guests[ss] = g
	if g.prefix != "" {
		rl.held[g.prefix] = g
	}
	return func() {
		rl.mu.Lock()
		defer rl.mu.Unlock()
		delete(rl.guests, ss)
		if g.prefix != "" {
			delete(rl.held, g.prefix)
		}
	}
}

// guestOf returns the guest ss serves, if it is one.
func (rl *relay) guestOf(ss *mcp.ServerSession) (*guest, bool) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	g, ok := rl.guests[ss]
	return g, ok
}

// heldGuest returns the guest that asked with prefix, if this replica
// holds it.
func (rl *relay) heldGuest(prefix string) (*guest, bool) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	g, ok := rl.held[prefix]
	return g, ok
}

// guest is a session recreate made for one request.
type guest struct {
	raw    string // the SDK's session ID
	prefix string // of the guest's request IDs, without the "-"
	t      *mcp.StreamableServerTransport
}

// newGuestPrefix returns a request ID prefix unique to one guest session.
func newGuestPrefix() string { return "sb" + rand.Text()[:16] }

// validTarget reports whether target can name a session object: "" (the
// SDK's own session) or a guest prefix.
func validTarget(target string) bool {
	if target == "" {
		return true
	}
	if len(target) != 18 || !strings.HasPrefix(target, "sb") {
		return false
	}
	for _, c := range target[2:] {
		if (c < 'A' || c > 'Z') && (c < '2' || c > '7') {
			return false
		}
	}
	return true
}

// answerTarget returns the session object an answer with ID id is for, and
// reports whether id is one the gateway could have sent.
func answerTarget(id json.RawMessage) (string, bool) {
	var v any
	d := json.NewDecoder(bytes.NewReader(id))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return "", false
	}
	switch v := v.(type) {
	case json.Number:
		return "", true
	case string:
		prefix, n, ok := strings.Cut(v, "-")
		if _, err := strconv.ParseInt(n, 10, 64); !ok || err != nil || prefix == "" || !validTarget(prefix) {
			return "", false
		}
		return prefix, true
	}
	return "", false
}

// prefixTransport gives the requests a guest session sends IDs with its
// prefix, and turns the IDs of the answers back.
type prefixTransport struct {
	t      *mcp.StreamableServerTransport
	prefix string
}

func (p prefixTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := p.t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &prefixConn{Connection: c, prefix: p.prefix + "-"}, nil
}

type prefixConn struct {
	mcp.Connection
	prefix string // with the "-"
}

func (c *prefixConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		if n, ok := req.ID.Raw().(int64); ok {
			cp := *req // the SDK keeps its own; the wire gets the prefixed copy
			cp.ID, _ = jsonrpc.MakeID(c.prefix + strconv.FormatInt(n, 10))
			msg = &cp
		}
	}
	return c.Connection.Write(ctx, msg)
}

func (c *prefixConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if s, ok := resp.ID.Raw().(string); ok && strings.HasPrefix(s, c.prefix) {
			if n, err := strconv.ParseInt(s[len(c.prefix):], 10, 64); err == nil {
				resp.ID, _ = jsonrpc.MakeID(float64(n)) // MakeID takes JSON numbers as float64
			}
		}
	}
	return msg, err
}

// mayAsk reports whether the POST r may need a question to the client: a
// tools/call of a tool whose policy asks, or a body the check cannot see
// into (a batch, a large body). r.Body reads as it came.
func (s *Server) mayAsk(r *http.Request) bool {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxDirectBody+1))
	r.Body = putBack{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil || len(body) > maxDirectBody {
		return true
	}
	if !bytes.Contains(body, []byte(`"tools/call"`)) {
		return false
	}
	if trimmed := bytes.TrimSpace(body); len(trimmed) > 0 && trimmed[0] == '[' {
		return true
	}
	var msg struct {
		Method string `json:"method"`
		Params *struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != "tools/call" || msg.Params == nil {
		return false // the SDK refuses it
	}
	e, ok := s.reg.Lookup(msg.Params.Name)
	return ok && s.gate.Decide(e) == ActionAsk
}

// serveAnswers serves a POST on session raw that carries only answers
// (JSON-RPC responses) when some of them are for a session object this
// replica does not hold: those are stored for the replica that does, the
// rest delivered here, and the client gets 202 as for any answer. It
// reports whether it answered; when it did not, r.Body reads as it came
// and the SDK (or recreate) serves the request.
func (rl *relay) serveAnswers(w http.ResponseWriter, r *http.Request, raw string) bool {
	if !rl.enabled() {
		return false
	}
	msgs, ok := answerMessages(r)
	if !ok {
		return false
	}
	type answer struct {
		body   json.RawMessage
		target string
	}
	answers := make([]answer, 0, len(msgs))
	_, owned := rl.owners.get(raw)
	local := true
	for _, m := range msgs {
		var head struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(m, &head) // answerMessages parsed it already
		target, ok := answerTarget(head.ID)
		if !ok {
			continue // no question of the gateway's has this ID: nobody waits for it
		}
		answers = append(answers, answer{m, target})
		local = local && target == "" && owned
	}
	if local {
		return false // the SDK's session here asked them all
	}
	for _, a := range answers {
		if rl.deliver(r.Context(), raw, a.target, a.body) {
			continue
		}
		err := rl.answers.PutMCPAnswer(r.Context(), store.MCPAnswer{Session: raw, Target: a.target, Body: a.body})
		if err != nil {
			rl.logger.ErrorContext(r.Context(), "relaying an MCP client's answer to another replica failed", logKeyErr, err)
			writeError(w, http.StatusServiceUnavailable, "Switchboard could not pass this answer to the replica waiting for it ("+err.Error()+"); send it again")
			return true
		}
	}
	w.WriteHeader(http.StatusAccepted)
	return true
}

// answerMessages returns the messages of r's body when they are all
// JSON-RPC responses (one, or a batch). r.Body reads as it came.
func answerMessages(r *http.Request) ([]json.RawMessage, bool) {
	if !jsonPost(r) {
		return nil, false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxDirectBody+1))
	r.Body = putBack{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil || len(body) > maxDirectBody || (!bytes.Contains(body, []byte(`"result"`)) && !bytes.Contains(body, []byte(`"error"`))) {
		return nil, false // the cheap test first: requests carry neither
	}
	var msgs []json.RawMessage
	if trimmed := bytes.TrimSpace(body); len(trimmed) > 0 && trimmed[0] == '[' {
		if json.Unmarshal(trimmed, &msgs) != nil {
			return nil, false
		}
	} else {
		msgs = []json.RawMessage{trimmed}
	}
	for _, raw := range msgs {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method *string         `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(raw, &m) != nil || m.Method != nil || len(m.ID) == 0 || (m.Result == nil && m.Error == nil) {
			return nil, false
		}
	}
	return msgs, len(msgs) > 0
}

// answersOnly reports whether r's body is JSON-RPC responses only (answers
// to the server's own requests), one or a batch. r.Body reads as it came.
func answersOnly(r *http.Request) bool {
	_, ok := answerMessages(r)
	return ok
}

// deliver passes one answer into the session object that asked, when this
// replica holds it, as a POST of the answer alone; it reports whether it
// did.
func (rl *relay) deliver(ctx context.Context, raw, target string, body json.RawMessage) bool {
	var h http.Handler
	version := ""
	if target == "" {
		rec, ok := rl.owners.get(raw)
		if !ok || rl.sdk == nil {
			return false
		}
		if ss := rec.session.Load(); ss != nil && ss.InitializeParams() != nil {
			version = ss.InitializeParams().ProtocolVersion
		}
		h = rl.sdk
	} else {
		g, ok := rl.heldGuest(target)
		if !ok || g.raw != raw {
			return false // a guest of another session: its prefix is not a key to this one
		}
		h = g.t
	}
	r, err := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodPost, "/mcp", bytes.NewReader(body))
	if err != nil {
		return false
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("Mcp-Session-Id", raw)
	if version != "" {
		r.Header.Set("Mcp-Protocol-Version", version)
	}
	var sink sinkWriter
	h.ServeHTTP(&sink, r)
	if sink.code >= 300 {
		rl.logger.WarnContext(ctx, "delivering an MCP client's answer into its session failed",
			logKeyStatus, sink.code, logKeyBody, strings.TrimSpace(sink.body.String()))
	}
	return sink.code < 300
}

// sinkWriter is the response of a delivered answer, which nobody reads
// but the status (the SDK answers 202, or an error).
type sinkWriter struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (w *sinkWriter) Header() http.Header {
	if w.header == nil {
		w.header = http.Header{}
	}
	return w.header
}

func (w *sinkWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *sinkWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	if w.body.Len() < 4<<10 {
		w.body.Write(b)
	}
	return len(b), nil
}

// await delivers, until the returned stop is called, the answers
// other replicas relay for the session object ss: the one waiting for an
// answer to its question. Its goroutine is owned by the caller (ask),
// which calls stop before it returns.
func (rl *relay) await(ctx context.Context, ss *mcp.ServerSession) (stop func()) {
	if !rl.enabled() || !rl.shared {
		return func() {}
	}
	raw, target := ss.ID(), ""
	if g, ok := rl.guestOf(ss); ok {
		raw, target = g.raw, g.prefix
	}
	if raw == "" {
		return func() {}
	}
	ch, unwatch := rl.changes.Watch(store.TopicMCPAnswers, store.WatchKey(raw, target))
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-ch:
			case <-done:
				return
			}
			answers, err := rl.answers.TakeMCPAnswers(context.WithoutCancel(ctx), raw, target)
			if err != nil {
				rl.logger.WarnContext(ctx, "taking relayed MCP answers failed", logKeyErr, err)
				continue // the next change, or the question's timeout, ends the wait
			}
			for _, a := range answers {
				if !rl.deliver(ctx, raw, target, a.Body) {
					rl.logger.WarnContext(ctx, "a relayed MCP answer found its session gone", logKeySession, raw)
				}
			}
		}
	})
	return func() {
		unwatch()
		close(done)
		wg.Wait()
	}
}
