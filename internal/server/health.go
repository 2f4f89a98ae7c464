package server

import (
	"context"
	_ "embed"
	"net/http"
	"strings"
	"time"
)

//go:embed openapi.json
var openapiJSON []byte

func (s *Server) healthz() handlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) error {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		return nil
	}
}

// readiness is the /readyz body.
type readiness struct {
	Status string   `json:"status"`
	Store  string   `json:"store"`
	Models []string `json:"models"`
	// Config lists the problems of a refused edit of the config file:
	// the service goes on with the configuration it had, so it stays
	// ready, and says what to fix.
	Config []string `json:"config,omitempty"`
	// Hint says what to do when something is missing.
	Hint string `json:"hint,omitempty"`
}

// noModelHint tells a user without a model how to connect one.
const noModelHint = "no model is configured: add models.default {provider, baseURL, model} to the config file " +
	"(serve applies it when the file is saved), or set OPENAI_API_KEY (or ANTHROPIC_API_KEY, GEMINI_API_KEY, OLLAMA_HOST) " +
	"and start serve again; `switchboard doctor` checks it"

// configRefusedHint explains the config problems /readyz lists.
const configRefusedHint = "the last edit of the config file was refused, so the configuration before it still runs: " +
	"fix the problems listed under config and save the file again (`switchboard config check` lists them too); " +
	"a discovered file that is not trusted yet is accepted with `switchboard config trust`"

// readyz answers 200 when the store is reachable, 503 otherwise. A missing
// model does not make the server unready (tools, audit and /mcp work
// without one) but the body says how to connect one.
func (s *Server) readyz() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		ping := s.opts.Ping
		if ping == nil {
			ping = func(ctx context.Context) error { _, err := s.store.Agents.ListAgents(ctx); return err }
		}
		body := readiness{Status: "ready", Store: "ok", Models: s.opts.Models()}
		if body.Models == nil {
			body.Models = []string{}
		}
		status := http.StatusOK
		if err := ping(ctx); err != nil {
			s.log(ctx).WarnContext(ctx, "store unreachable", logKeyErr, err)
			status, body.Status, body.Store = http.StatusServiceUnavailable, "unready", "unreachable"
			body.Hint = "the database does not answer; check the store settings and the server log"
		} else if len(body.Models) == 0 {
			body.Hint = noModelHint
		}
		if f := s.opts.ConfigProblems; f != nil {
			if body.Config = f(); len(body.Config) > 0 && body.Hint == "" {
				body.Hint = configRefusedHint
			}
		}
		writeJSON(w, status, body)
		return nil
	}
}

func (s *Server) metricsRoute() handlerFunc {
	h := s.metrics.Handler()
	return func(w http.ResponseWriter, r *http.Request) error {
		h.ServeHTTP(w, r)
		return nil
	}
}

func (s *Server) openapi() handlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) error {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(openapiJSON)
		return nil
	}
}

// mcp serves the gateway; the user is on the context (see [UserFrom]).
func (s *Server) mcp() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if s.opts.MCP == nil {
			return errorf(http.StatusNotFound, "not_found", "the MCP gateway is not enabled on this server")
		}
		s.opts.MCP.ServeHTTP(w, r)
		return nil
	}
}

// web serves the UI for every GET that no API route matched; unknown API
// paths get a JSON 404 instead of a page.
func (s *Server) web() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		p := r.URL.Path
		if strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/v1/") {
			return errorf(http.StatusNotFound, "not_found", "no route %s %s; see /api/openapi.json", r.Method, p)
		}
		if s.opts.Web == nil {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = w.Write([]byte("Switchboard is running. The API is described at /api/openapi.json.\n"))
			return nil
		}
		s.opts.Web.ServeHTTP(w, r)
		return nil
	}
}
