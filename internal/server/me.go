package server

import (
	"net/http"
)

// meJSON is GET /api/v1/me: who the caller is and what its role lets it
// do, so the web UI can hide what the user may not do (the routes refuse
// it regardless).
type meJSON struct {
	Name      string   `json:"name"`
	Role      string   `json:"role"`
	Anonymous bool     `json:"anonymous"`
	Tools     []string `json:"tools"`
	// Session is set when the caller is signed in by a session cookie
	// (the UI then offers to sign out).
	Session bool `json:"session,omitempty"`
}

func (s *Server) me() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		u := mustUser(r)
		role := u.role()
		tools := u.Permissions
		if tools == nil {
			tools = []string{"*"}
		}
		writeJSON(w, http.StatusOK, meJSON{Name: u.Name, Role: string(role), Anonymous: u.Anonymous, Tools: tools, Session: u.Session})
		return nil
	}
}
