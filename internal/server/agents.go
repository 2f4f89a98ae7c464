package server

import (
	"net/http"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// agentBody is the body of create and update. Version is required for
// update (optimistic concurrency: a stale version is 409).
type agentBody struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Model       string   `json:"model"`
	Prompt      string   `json:"prompt"`
	Servers     []string `json:"servers"`
	Router      string   `json:"router"`
	Version     int64    `json:"version"`
}

func (b *agentBody) record() store.Agent {
	return store.Agent{
		Name: b.Name, Description: b.Description, Model: b.Model, Prompt: b.Prompt,
		Servers: b.Servers, Router: b.Router, Source: store.SourceRuntime, Version: b.Version,
	}
}

func (s *Server) listAgents() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		as, err := s.store.Agents.ListAgents(r.Context())
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, list[agentJSON]{Items: mapSlice(as, toAgent)})
		return nil
	}
}

func (s *Server) createAgent() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var b agentBody
		if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &b); err != nil {
			return err
		}
		if !tools.ValidName(b.Name) {
			return badRequest("agent name %q must be 1 to 64 letters, digits, _ or -", b.Name)
		}
		a, err := s.store.Agents.CreateAgent(r.Context(), b.record())
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusCreated, toAgent(a))
		return nil
	}
}

func (s *Server) getAgent() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		name := r.PathValue("name")
		a, err := s.store.Agents.GetAgent(r.Context(), name)
		if err != nil {
			return notFoundAs(err, "no agent %q", name)
		}
		writeJSON(w, http.StatusOK, toAgent(a))
		return nil
	}
}

func (s *Server) updateAgent() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var b agentBody
		if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &b); err != nil {
			return err
		}
		name := r.PathValue("name")
		if b.Name != "" && b.Name != name {
			return badRequest("the body names agent %q but the path %q; agents cannot be renamed", b.Name, name)
		}
		if b.Version <= 0 {
			return badRequest("version is required: send the version you read, so that concurrent edits are not lost")
		}
		b.Name = name
		a, err := s.store.Agents.UpdateAgent(r.Context(), b.record())
		if err != nil {
			return notFoundAs(err, "no agent %q", name)
		}
		writeJSON(w, http.StatusOK, toAgent(a))
		return nil
	}
}

func (s *Server) deleteAgent() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		name := r.PathValue("name")
		if err := s.store.Agents.DeleteAgent(r.Context(), name); err != nil {
			return notFoundAs(err, "no agent %q", name)
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

func (s *Server) assignServer() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		name := r.PathValue("name")
		a, err := s.store.AgentServers.AssignServer(r.Context(), name, r.PathValue("server"))
		if err != nil {
			return notFoundAs(err, "no agent %q", name)
		}
		writeJSON(w, http.StatusOK, toAgent(a))
		return nil
	}
}

func (s *Server) removeServer() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		name := r.PathValue("name")
		a, err := s.store.AgentServers.RemoveServer(r.Context(), name, r.PathValue("server"))
		if err != nil {
			return notFoundAs(err, "no agent %q", name)
		}
		writeJSON(w, http.StatusOK, toAgent(a))
		return nil
	}
}
