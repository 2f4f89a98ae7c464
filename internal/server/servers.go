package server

import (
	"context"
	"net/http"
	"time"
)

// listServers lists the tool servers. Only admins get each server's last
// error, roots and stdout noise count: errors quote the server's stderr
// and roots name local paths, which are the operator's to read.
func (s *Server) listServers() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var st []ServerStatus
		if s.opts.Servers != nil {
			st = s.opts.Servers.Status()
		}
		if st == nil {
			st = []ServerStatus{}
		}
		if !mustUser(r).Admin {
			for i := range st {
				st[i].Error, st[i].Roots, st[i].RootsRequests, st[i].NonProtocolLines = "", nil, 0, 0
			}
		}
		writeJSON(w, http.StatusOK, list[ServerStatus]{Items: st})
		return nil
	}
}

type stderrJSON struct {
	Server string   `json:"server"`
	Lines  []string `json:"lines"`
}

func (s *Server) serverStderr() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		name := r.PathValue("name")
		var lines []string
		ok := false
		if s.opts.Servers != nil {
			lines, ok = s.opts.Servers.Stderr(name)
		}
		if !ok {
			return errorf(http.StatusNotFound, "not_found", "no server %q; list them at /api/v1/servers", name)
		}
		if lines == nil {
			lines = []string{}
		}
		writeJSON(w, http.StatusOK, stderrJSON{Server: name, Lines: lines})
		return nil
	}
}

// restartTimeout bounds a restart requested over HTTP.
const restartTimeout = 30 * time.Second

// restartServer asks the pool to restart a server. The restart is counted
// by the app's host hook ([Metrics.ObserveRestart]), like crash restarts,
// so that each restart is counted once.
func (s *Server) restartServer() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		name := r.PathValue("name")
		if s.opts.Servers == nil {
			return errorf(http.StatusNotFound, "not_found", "no server %q; list them at /api/v1/servers", name)
		}
		ctx, cancel := context.WithTimeout(r.Context(), restartTimeout)
		defer cancel()
		if err := s.opts.Servers.Restart(ctx, name); err != nil {
			return notFoundAs(err, "no server %q; list them at /api/v1/servers", name)
		}
		writeJSON(w, http.StatusAccepted, map[string]string{"server": name, "status": "restarting"})
		return nil
	}
}
