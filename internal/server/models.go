package server

import (
	"net/http"
	"slices"
)

// chooseModel checks a model a caller asked for by name (a message's
// model, a chat completion's model that is no agent): it must be
// configured, and the caller's permissions must include it
// ([gate.Caller.PermitsModel]). "" (the agent's own model) passes.
func (s *Server) chooseModel(u User, name string) error {
	if name == "" {
		return nil
	}
	if !slices.Contains(s.opts.Models(), name) {
		return errorf(http.StatusNotFound, "model_not_found", "no model %q is configured; list the models you may use at /v1/models", name)
	}
	if c := u.caller(); !c.PermitsModel(name) {
		return errorf(http.StatusForbidden, "model_forbidden", "you may not use model %q; list the models you may use at /v1/models, or ask an admin to add model:%s to your permissions", name, name)
	}
	return nil
}

// userModels returns the configured models u may use, in the order
// [Options].Models gives them.
func (s *Server) userModels(u User) []string {
	c := u.caller()
	var out []string
	for _, m := range s.opts.Models() {
		if c.PermitsModel(m) {
			out = append(out, m)
		}
	}
	return out
}
