// Package emailserver is an example OpenAPI action server: an in-memory
// mailbox with the two actions send-email and read-emails, serving its own
// OpenAPI 3.1 document at /openapi.json. Switchboard's tests (and anyone
// trying the OpenAPI support by hand) run it on httptest.NewServer; it is
// small and its seed data is fixed so that end-to-end tests can rely on it.
//
// Layer: test support. It imports only the standard library; tests and
// examples import it, production code does not.
package emailserver

import (
	_ "embed"
	"net/http"
	"slices"
	"sync"
	"time"
)

//go:embed openapi.json
var openapiDoc []byte

// Message is one e-mail in the mailbox. Address lists are comma-separated,
// as the send-email action takes them.
type Message struct {
	ID      string    `json:"id"`
	From    string    `json:"from"`
	To      string    `json:"to"`
	Cc      string    `json:"cc,omitempty"`
	Bcc     string    `json:"bcc,omitempty"`
	Subject string    `json:"subject"`
	Body    string    `json:"body"`
	Date    time.Time `json:"date"`
	Unread  bool      `json:"unread"`
}

// Options configures a [Server]; nil means defaults.
type Options struct {
	// Bearer, when set, is the token the actions require as
	// "Authorization: Bearer <token>". The document stays public.
	Bearer string
	// Now gives the date of sent mail; nil means time.Now.
	Now func() time.Time
}

// Server is the mailbox and its HTTP handler. It is safe for concurrent use.
type Server struct {
	opts Options
	mux  *http.ServeMux
	mu   sync.Mutex // guards inbox, sent
	// inbox is newest first.
	inbox []Message
	sent  []Message
}

// New returns a server with the seeded inbox that requires no token.
func New() *Server { return NewWithOptions(nil) }

// NewWithOptions returns a server with the seeded inbox; opts may be nil.
func NewWithOptions(opts *Options) *Server {
	s := &Server{inbox: Seed()}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.Now == nil {
		s.opts.Now = time.Now
	}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET /openapi.json", s.serveDoc)
	s.mux.HandleFunc("POST /send-email", s.auth(s.sendEmail))
	s.mux.HandleFunc("POST /read-emails", s.auth(s.readEmails))
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Sent returns the mail sent so far, oldest first.
func (s *Server) Sent() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.sent)
}

// Inbox returns the inbox, newest first.
func (s *Server) Inbox() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.inbox)
}

// Document returns the OpenAPI document the server serves.
func Document() []byte { return slices.Clone(openapiDoc) }

// Seed returns the inbox every new server starts with, newest first:
// msg-1 (alice, unread), msg-2 (bob, unread), msg-3 (billing, read),
// msg-4 (alice, read), msg-5 (newsletter, unread).
func Seed() []Message {
	day := func(d, h, m int) time.Time { return time.Date(2026, time.March, d, h, m, 0, 0, time.UTC) }
	return []Message{
		{
			ID: "msg-1", From: "Alice Martin <alice@example.com>", To: "me@example.com", Subject: "Project kickoff moved to Thursday",
			Body: "Hi! The kickoff meeting moves to Thursday 10:00, same room. Please bring the draft timeline.", Date: day(10, 9, 15), Unread: true,
		},
		{
			ID: "msg-2", From: "Bob Chen <bob@example.com>", To: "me@example.com", Subject: "Lunch on Friday?",
			Body: "Are you free for lunch on Friday at 12:30? The new place on Main Street.", Date: day(9, 12, 30), Unread: true,
		},
		{
			ID: "msg-3", From: "Billing <billing@example.net>", To: "me@example.com", Subject: "Your March invoice",
			Body: "Your invoice for March (42.00 EUR) is available in your account.", Date: day(8, 7, 0),
		},
		{
			ID: "msg-4", From: "Alice Martin <alice@example.com>", To: "me@example.com", Cc: "team@example.com", Subject: "Re: Design review notes",
			Body: "Thanks for the notes. I agree with points 1 and 3; let's discuss 2 at the kickoff.", Date: day(7, 16, 45),
		},
		{
			ID: "msg-5", From: "Weekly Digest <newsletter@example.org>", To: "me@example.com", Subject: "Your weekly digest",
			Body: "Five articles we think you will like this week.", Date: day(5, 6, 0), Unread: true,
		},
	}
}

func (s *Server) serveDoc(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(openapiDoc)
}

// auth requires the bearer token when one is configured.
func (s *Server) auth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.opts.Bearer != "" && r.Header.Get("Authorization") != "Bearer "+s.opts.Bearer {
			w.Header().Set("WWW-Authenticate", "Bearer")
			writeJSON(w, http.StatusUnauthorized, detail("missing or invalid bearer token"))
			return
		}
		h(w, r)
	}
}
