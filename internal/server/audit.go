package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// listAudit lists audit records, newest first, filtered by the query:
// user, tool (a glob), server, conversation, outcome, since and until
// (RFC 3339), limit. A user sees only their own records; an admin (and the
// anonymous local user) sees everyone's.
func (s *Server) listAudit() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		f := store.AuditFilter{
			User: q.Get("user"), Tool: q.Get("tool"), Server: q.Get("server"),
			ConversationID: q.Get("conversation"), Outcome: store.Outcome(q.Get("outcome")),
		}
		var err error
		if f.Since, err = parseTime(q.Get("since"), "since"); err != nil {
			return err
		}
		if f.Until, err = parseTime(q.Get("until"), "until"); err != nil {
			return err
		}
		if v := q.Get("limit"); v != "" {
			if f.Limit, err = strconv.Atoi(v); err != nil || f.Limit < 0 {
				return badRequest("limit %q is not a non-negative integer", v)
			}
			f.Limit = store.PageSize(f.Limit, 100)
		}
		if err := f.Validate(); err != nil {
			return badRequest("%v", err)
		}
		if u := mustUser(r); !u.Admin {
			if f.User != "" && f.User != u.Name {
				return errorf(http.StatusForbidden, "forbidden", "you may read only your own audit records; an admin may read everyone's")
			}
			f.User = u.Name
		}
		recs, err := s.store.Audit.ListAudit(r.Context(), f)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, list[auditJSON]{Items: mapSlice(recs, toAudit)})
		return nil
	}
}

func parseTime(v, name string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, badRequest("%s %q is not an RFC 3339 time (2006-01-02T15:04:05Z)", name, v)
	}
	return t, nil
}
