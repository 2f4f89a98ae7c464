package emailserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// flexible accepts a JSON string, number, boolean, null or list of strings,
// because the system this example stands for let callers send "" for
// "unset" and numbers as strings, and models sometimes send address lists
// as arrays.
type flexible struct {
	set bool
	raw string
}

func (f *flexible) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch x := v.(type) {
	case nil:
	case string:
		f.raw = strings.TrimSpace(x)
		f.set = f.raw != ""
	case float64:
		f.raw, f.set = strconv.FormatFloat(x, 'f', -1, 64), true
	case bool:
		f.raw, f.set = strconv.FormatBool(x), true
	case []any: // ["a@x", "b@y"] for an address list
		var parts []string
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return fmt.Errorf("expected a list of strings")
			}
			if s = strings.TrimSpace(s); s != "" {
				parts = append(parts, s)
			}
		}
		f.raw = strings.Join(parts, ", ")
		f.set = f.raw != ""
	default:
		return fmt.Errorf("expected a string, number or boolean")
	}
	return nil
}

type sendRequest struct {
	To      flexible `json:"to"`
	Subject flexible `json:"subject"`
	Body    flexible `json:"body"`
	Cc      flexible `json:"cc"`
	Bcc     flexible `json:"bcc"`
}

type readRequest struct {
	Limit           flexible `json:"limit"`
	Sender          flexible `json:"sender"`
	SubjectContains flexible `json:"subject_contains"`
	UnreadOnly      flexible `json:"unread_only"`
}

// decode reads an optional JSON object body into v.
func decode(r *http.Request, v any) error {
	b, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("reading body: %w", err)
	}
	if strings.TrimSpace(string(b)) == "" {
		return nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("body must be a JSON object: %w", err)
	}
	return nil
}

func (s *Server) sendEmail(w http.ResponseWriter, r *http.Request) {
	var req sendRequest
	if err := decode(r, &req); err != nil {
		writeJSON(w, http.StatusUnprocessableEntity, detail(err.Error()))
		return
	}
	if !req.To.set {
		writeJSON(w, http.StatusUnprocessableEntity, detail("to is required: give at least one recipient address"))
		return
	}
	for _, list := range []flexible{req.To, req.Cc, req.Bcc} {
		for _, a := range splitAddrs(list.raw) {
			if !strings.Contains(a, "@") {
				writeJSON(w, http.StatusUnprocessableEntity, detail(fmt.Sprintf("%q is not an email address", a)))
				return
			}
		}
	}
	s.mu.Lock()
	m := Message{
		ID: fmt.Sprintf("sent-%d", len(s.sent)+1), From: "me@example.com",
		To: req.To.raw, Cc: req.Cc.raw, Bcc: req.Bcc.raw,
		Subject: req.Subject.raw, Body: req.Body.raw, Date: s.opts.Now().UTC(),
	}
	s.sent = append(s.sent, m)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"status": "sent", "id": m.ID, "message": "Email sent to " + m.To})
}

func splitAddrs(s string) []string {
	var out []string
	for _, a := range strings.Split(s, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

func (s *Server) readEmails(w http.ResponseWriter, r *http.Request) {
	var req readRequest
	if err := decode(r, &req); err != nil {
		writeJSON(w, http.StatusUnprocessableEntity, detail(err.Error()))
		return
	}
	limit := 10
	if req.Limit.set {
		n, err := strconv.Atoi(req.Limit.raw)
		if err != nil || n < 1 || n > 50 {
			writeJSON(w, http.StatusUnprocessableEntity, detail("limit must be a whole number from 1 to 50"))
			return
		}
		limit = n
	}
	unreadOnly := false
	if req.UnreadOnly.set {
		b, err := strconv.ParseBool(req.UnreadOnly.raw)
		if err != nil {
			writeJSON(w, http.StatusUnprocessableEntity, detail("unread_only must be true or false"))
			return
		}
		unreadOnly = b
	}
	sender := strings.ToLower(req.Sender.raw)
	subject := strings.ToLower(req.SubjectContains.raw)

	matched := []Message{}
	for _, m := range s.Inbox() {
		if unreadOnly && !m.Unread ||
			sender != "" && !strings.Contains(strings.ToLower(m.From), sender) ||
			subject != "" && !strings.Contains(strings.ToLower(m.Subject), subject) {
			continue
		}
		matched = append(matched, m)
	}
	total := len(matched)
	if len(matched) > limit {
		matched = matched[:limit]
	}
	writeJSON(w, http.StatusOK, map[string]any{"emails": matched, "count": len(matched), "total": total})
}

func detail(msg string) map[string]string { return map[string]string{"detail": msg} }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // "Alice <alice@example.com>" stays readable
	_ = enc.Encode(v)
}
