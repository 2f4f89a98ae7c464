package mcpserve

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"hash"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Session IDs handed to clients are the SDK's ID, a dot and a MAC of the ID
// and the creating caller under [Options].SessionKey. Any replica holding
// the key can tell, from the ID alone, that a session exists and whose it
// is, and so continue a session another replica created (recreate), with
// no shared table and no sticky routing. The SDK only ever sees its own ID.

// signedID returns the ID the client sees for the SDK's session raw of
// caller. elicit records that the client declared form elicitation, which
// a replica continuing the session must know to ask it anything; it is
// under the MAC, and IDs without it read as before.
func (s *Server) signedID(raw, caller string, elicit bool) string {
	id := raw + "." + s.sessionMAC(raw, caller, elicit)
	if elicit {
		id += ".e"
	}
	return id
}

func (s *Server) sessionMAC(raw, caller string, elicit bool) string {
	m, _ := s.macs.Get().(hash.Hash)
	if m == nil {
		m = hmac.New(sha256.New, s.opts.SessionKey)
	}
	defer func() {
		m.Reset()
		s.macs.Put(m)
	}()
	var buf [sha256.Size]byte
	_, _ = io.WriteString(m, raw)
	m.Write([]byte{0})
	_, _ = io.WriteString(m, caller)
	if elicit {
		m.Write([]byte{0, 'e'})
	}
	return base64.RawURLEncoding.EncodeToString(m.Sum(buf[:0])[:18])
}

// openID returns the SDK's ID inside the client's ID id, whether the
// client declared elicitation, and reports whether id was made for caller.
// An ID of another form (no MAC) is returned as it is, not valid. rec is
// the record of the session id names, when this Server holds it: an id
// equal to the one it issued to the same caller is valid without
// computing the MAC again, which was a per-request HMAC on the hot path.
// (The comparison need not be constant-time: only the session's own
// caller reaches it, and the ID was issued to that caller.)
func (s *Server) openID(id, caller string, rec *sessionRec) (raw string, elicit, signed, valid bool) {
	raw, rest, ok := strings.Cut(id, ".")
	if !ok {
		return id, false, false, false
	}
	mac, flags, _ := strings.Cut(rest, ".")
	elicit = flags == "e"
	if flags != "" && !elicit {
		return raw, false, true, false
	}
	if rec != nil && rec.id != "" && rec.caller == caller && rec.id == id {
		return raw, elicit, true, true
	}
	return raw, elicit, true, hmac.Equal([]byte(mac), []byte(s.sessionMAC(raw, caller, elicit)))
}

// newSessionKey returns a random key, for a Server given none: its
// sessions can then only continue on it.
func newSessionKey() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k) // crypto/rand.Read never fails
	return k
}

// recreate serves a request on a session this Server does not hold:
// created by another replica sharing the key, or expired here (only when
// the key is shared; a lone Server answers 404, and the client starts a
// new session with everything it offers). The
// client's ID proved the session is the caller's; what initialize
// negotiated is re-created from what the request carries (the protocol
// version header, and the elicitation flag of the ID), on a guest session
// that lives for this one request. With answers relayed between replicas
// ([Options].Answers), the guest has a stateful transport and asks its
// questions (elicitation) on the call's own stream, and an answer it waits
// for that reaches another replica comes back through the store
// (relay.go). Without, the guest is stateless and a call that needs an
// approval question is refused with a message saying why (ask), and an
// answer to a question another replica asked is logged as lost, for the
// operator to pin sessions (docs/DEPLOY.md). Either way a GET stream is
// not offered (405, which clients accept), and DELETE has nothing to end.
func (s *Server) recreate(w http.ResponseWriter, r *http.Request, raw string, elicit bool) {
	switch r.Method {
	case http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
		return
	case http.MethodPost:
	default:
		w.Header().Set("Allow", "POST, DELETE")
		writeError(w, http.StatusMethodNotAllowed, "this replica serves this session's POST requests only; open notification streams on a new session")
		return
	}
	if s.relay.serveAnswers(w, r, raw) {
		return
	}
	if answersOnly(r) {
		s.logger.WarnContext(r.Context(), "an MCP client's answer to a question asked by another replica arrived here and is lost; "+
			"the question (an approval) will time out. Route each /mcp session to the replica that created it, "+
			"or give the replicas a shared database (docs/DEPLOY.md)")
	}
	version := r.Header.Get("Mcp-Protocol-Version")
	if version == "" {
		version = "2025-03-26" // what the transport assumes without the header
	}
	// A call that will ask the client gets a stateful transport, which
	// can send requests on the call's POST stream, when the answer can be
	// relayed back; everything else a stateless one, which costs less
	// (BenchmarkGuestCall) and still sends the call's notifications
	// (progress) on its stream.
	asks := s.relay.enabled() && s.mayAsk(r)
	g := &guest{raw: raw, t: &mcp.StreamableServerTransport{SessionID: raw, Stateless: !asks}}
	var t mcp.Transport = g.t
	if asks {
		g.prefix = newGuestPrefix()
		t = prefixTransport{t: g.t, prefix: g.prefix}
	}
	ss, err := s.mcp.Connect(r.Context(), t, &mcp.ServerSessionOptions{State: &mcp.ServerSessionState{
		InitializeParams:          &mcp.InitializeParams{ProtocolVersion: version, Capabilities: guestCapabilities(elicit)},
		InitializedParams:         &mcp.InitializedParams{},
		NegotiatedProtocolVersion: version,
	}})
	if err != nil {
		writeError(w, http.StatusInternalServerError, "Switchboard could not continue this MCP session; initialize a new one")
		return
	}
	defer ss.Close()
	defer s.relay.join(ss, g)()
	g.t.ServeHTTP(w, r)
}

// idWriter shows the client its signed session ID wherever the SDK (or the
// direct path) names its own, and records the owner of a session the
// request creates at the moment the response header is written, before the
// client can see the ID and use it.
type idWriter struct {
	http.ResponseWriter
	s      *Server
	caller string
	// id is the client's ID of the session the request names, shown
	// back as it is; "" for a request that may create a session.
	id     string
	elicit bool // the initialize request declared form elicitation
	create bool // the request may create a session (holds a reserved place)
	done   bool
	added  bool // a session was recorded, taking the reserved place
}

func (w *idWriter) WriteHeader(code int) {
	w.header(code)
	w.ResponseWriter.WriteHeader(code)
}

func (w *idWriter) Write(b []byte) (int, error) {
	w.header(http.StatusOK)
	return w.ResponseWriter.Write(b)
}

func (w *idWriter) header(code int) {
	if w.done {
		return
	}
	w.done = true
	raw := w.Header().Get("Mcp-Session-Id")
	if raw == "" {
		return
	}
	if w.id != "" {
		w.Header().Set("Mcp-Session-Id", w.id)
		return
	}
	id := w.s.signedID(raw, w.caller, w.elicit)
	w.Header().Set("Mcp-Session-Id", id)
	if w.create && code < 300 {
		w.s.owners.add(raw, id, w.caller, w.s.liveSessions)
		w.added = true
	}
}

// Flush and Unwrap keep streaming working through the wrapper
// (http.ResponseController finds the underlying writer).
func (w *idWriter) Flush() {
	w.header(http.StatusOK)
	_ = http.NewResponseController(w.ResponseWriter).Flush() // an error means the client left
}

func (w *idWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// guestCapabilities are the client capabilities a re-created session
// assumes: what the session ID says the client declared.
func guestCapabilities(elicit bool) *mcp.ClientCapabilities {
	if !elicit {
		return &mcp.ClientCapabilities{}
	}
	return &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}
}

// declaresElicitation reports whether r is an initialize request whose
// client declared form elicitation. r.Body reads as it came.
func declaresElicitation(r *http.Request) bool {
	if r.Method != http.MethodPost || !jsonPost(r) {
		return false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxDirectBody+1))
	r.Body = putBack{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil || len(body) > maxDirectBody {
		return false
	}
	var msg struct {
		Method string `json:"method"`
		Params *struct {
			Capabilities *struct {
				Elicitation *struct {
					Form json.RawMessage `json:"form"`
					URL  json.RawMessage `json:"url"`
				} `json:"elicitation"`
			} `json:"capabilities"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != "initialize" || msg.Params == nil || msg.Params.Capabilities == nil {
		return false
	}
	el := msg.Params.Capabilities.Elicitation
	// Neither mode declared means form, for older clients (canElicit).
	return el != nil && (el.Form != nil || el.URL == nil)
}
