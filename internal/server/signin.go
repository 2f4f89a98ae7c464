package server

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/switchboard-mcp/switchboard/internal/signin"
)

// The sign-in routes: GET /auth/login sends the browser to the provider,
// GET /auth/callback takes its answer and starts a session, POST
// /auth/logout ends it. Without [Options].SignIn they answer 404.

var errNoSignIn = errorf(http.StatusNotFound, "not_found", "sign-in with an OpenID provider is not configured (auth.oidc in the config file)")

var errNoBase = errorf(http.StatusServiceUnavailable, "no_public_url",
	"this server does not know its public URL, so it cannot name its sign-in callback: set server.publicURL in the config file")

// callbackURL is where the provider sends the browser back.
func (s *Server) callbackURL(r *http.Request) (string, error) {
	base := s.baseURL(r)
	if base == "" {
		return "", errNoBase
	}
	return base + "/auth/callback", nil
}

func (s *Server) login() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		si := s.opts.SignIn
		if si == nil {
			return errNoSignIn
		}
		redirect, err := s.callbackURL(r)
		if err != nil {
			return err
		}
		f := signin.NewFlow()
		to, err := si.Provider.AuthURL(r.Context(), f, redirect)
		if err != nil {
			return &Error{
				Status: http.StatusBadGateway, Code: "provider_unavailable", Err: err,
				Msg: "the OpenID provider could not be reached; try again, or ask the operator to check auth.oidc.issuer",
			}
		}
		s.setCookie(w, r, s.cookieName(r, flowCookieSecure, flowCookiePlain), f.Encode(), int(flowLifetime.Seconds()))
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, to, http.StatusFound)
		return nil
	}
}

// signInRefused is a sign-in that cannot go on; the browser gets the
// message and a way back.
func signInRefused(status int, format string, args ...any) *Error {
	return &Error{Status: status, Code: "signin_refused", Msg: fmt.Sprintf(format, args...) + " Start again at /auth/login."}
}

func (s *Server) callback() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		si := s.opts.SignIn
		if si == nil {
			return errNoSignIn
		}
		w.Header().Set("Cache-Control", "no-store")
		// The flow cookie is used once, whatever the outcome: a second
		// answer for the same flow finds none.
		name := s.cookieName(r, flowCookieSecure, flowCookiePlain)
		c, cerr := r.Cookie(name)
		s.setCookie(w, r, name, "", -1)
		q := r.URL.Query()
		if e := q.Get("error"); e != "" {
			return signInRefused(http.StatusUnauthorized, "The provider did not sign you in (%s).", e)
		}
		if cerr != nil {
			return signInRefused(http.StatusBadRequest, "This browser started no sign-in, or took longer than %s.", flowLifetime)
		}
		f, err := signin.ParseFlow(c.Value)
		if err != nil {
			return signInRefused(http.StatusBadRequest, "The sign-in cookie is malformed.")
		}
		if !f.StateMatches(q.Get("state")) {
			return signInRefused(http.StatusBadRequest, "The provider's answer is not for the sign-in this browser started (state mismatch).")
		}
		code := q.Get("code")
		if code == "" {
			return signInRefused(http.StatusBadRequest, "The provider's answer has no code.")
		}
		redirect, err := s.callbackURL(r)
		if err != nil {
			return err
		}
		id, err := si.Provider.Exchange(r.Context(), f, code, redirect)
		if errors.Is(err, signin.ErrRefused) {
			return &Error{
				Status: http.StatusUnauthorized, Code: "signin_refused", Err: err,
				Msg: "The provider's answer could not be verified. Start again at /auth/login.",
			}
		}
		if err != nil {
			return &Error{
				Status: http.StatusBadGateway, Code: "provider_unavailable", Err: err,
				Msg: "the OpenID provider could not be reached; try again",
			}
		}
		u, err := s.signInUser(r.Context(), id)
		if err != nil {
			return err
		}
		if err := s.startSession(w, r, u.ID); err != nil {
			return err
		}
		s.log(r.Context()).InfoContext(r.Context(), "signed in", logKeyUser, u.Name)
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return nil
	}
}

func (s *Server) logout() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		si := s.opts.SignIn
		if si == nil {
			return errNoSignIn
		}
		if err := s.checkCSRF(r); err != nil {
			return err
		}
		if v := s.sessionValue(r); v != "" {
			if err := si.Sessions.DeleteWebSession(r.Context(), HashKey(v)); err != nil {
				return err
			}
		}
		s.setCookie(w, r, s.cookieName(r, sessionCookieSecure, sessionCookiePlain), "", -1)
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}
