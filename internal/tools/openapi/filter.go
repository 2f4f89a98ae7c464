package openapi

import (
	"fmt"
	"path"
	"slices"
)

// checkGlobs reports the first malformed Allow or Deny pattern.
func (s *Server) checkGlobs() error {
	for _, g := range append(slices.Clone(s.opts.Allow), s.opts.Deny...) {
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("openapi server %q: bad allow/deny pattern %q: %w", s.name, g, err)
		}
	}
	return nil
}

// allowed applies Allow and Deny to a tool name; deny wins.
func (s *Server) allowed(name string) bool {
	for _, g := range s.opts.Deny {
		if ok, _ := path.Match(g, name); ok {
			return false
		}
	}
	if len(s.opts.Allow) == 0 {
		return true
	}
	for _, g := range s.opts.Allow {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}
