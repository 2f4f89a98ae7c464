package server

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// Cookie names. On https the __Host- prefix makes the browser refuse the
// cookie unless it is Secure, has Path=/ and no Domain, so a sibling
// subdomain or a plain-http page cannot plant or overwrite it (cookie
// tossing, session fixation). The prefix needs Secure, which needs https:
// on plain http (allowed only on a loopback host, see server.publicURL)
// the cookies carry no prefix and no Secure flag. Loopback traffic does
// not leave the machine, and a Secure cookie over http is refused by some
// clients; the cookie is still HttpOnly and SameSite=Lax.
const (
	sessionCookieSecure = "__Host-switchboard_session"
	sessionCookiePlain  = "switchboard_session"
	flowCookieSecure    = "__Host-switchboard_signin"
	flowCookiePlain     = "switchboard_signin"
	// sessionPrefix starts every session cookie value, so one is easy to
	// recognise in logs and secret scanners.
	sessionPrefix = "sbs_"
)

// secureCookies reports whether cookies for r are sent only over https:
// the server's public URL is https, or r came over TLS.
func (s *Server) secureCookies(r *http.Request) bool {
	return strings.HasPrefix(s.baseURL(r), "https://") || r.TLS != nil
}

func (s *Server) cookieName(r *http.Request, secure, plain string) string {
	if s.secureCookies(r) {
		return secure
	}
	return plain
}

// setCookie writes a cookie with the flags every Switchboard cookie has.
// maxAge < 0 deletes it.
func (s *Server) setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: s.secureCookies(r), SameSite: http.SameSiteLaxMode,
	})
}

// sessionValue returns the session cookie r carries under the name its
// scheme uses, or "".
func (s *Server) sessionValue(r *http.Request) string {
	c, err := r.Cookie(s.cookieName(r, sessionCookieSecure, sessionCookiePlain))
	if err != nil || !strings.HasPrefix(c.Value, sessionPrefix) {
		return ""
	}
	return c.Value
}

// newSessionValue returns a fresh session cookie value: 32 random bytes.
func newSessionValue() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return sessionPrefix + base64.RawURLEncoding.EncodeToString(b)
}

var errSessionEnded = &Error{
	Status: http.StatusUnauthorized, Code: "session_ended",
	Msg: "your sign-in session has ended (signed out, expired or unused too long): sign in again",
}

// authenticateSession returns the user of the session cookie value. The
// session is read from the store on every request, so a session ended on
// any replica is refused at once; expiry is checked here, idle and
// absolute, against the server's clock.
func (s *Server) authenticateSession(r *http.Request, value string) (User, error) {
	si := s.opts.SignIn
	ctx := r.Context()
	hash := HashKey(value)
	sess, err := si.Sessions.GetWebSession(ctx, hash)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return User{}, errSessionEnded
	case err != nil:
		return User{}, err
	}
	now := s.opts.Now()
	if !now.Before(sess.ExpiresAt) || !now.Before(sess.LastSeenAt.Add(si.Idle)) {
		_ = si.Sessions.DeleteWebSession(ctx, hash)
		return User{}, errSessionEnded
	}
	u, ok, err := s.users.ByID(ctx, sess.UserID)
	if err == nil && !ok {
		// A user created a moment ago on another replica may not be in
		// this replica's view yet: look again before refusing.
		s.users.Invalidate()
		u, ok, err = s.users.ByID(ctx, sess.UserID)
	}
	switch {
	case err != nil:
		return User{}, err
	case !ok:
		return User{}, errSessionEnded
	case u.Disabled:
		return User{}, errDisabled
	}
	if now.Sub(sess.LastSeenAt) >= touchEvery {
		if err := si.Sessions.TouchWebSession(ctx, hash, now); err != nil && !errors.Is(err, store.ErrNotFound) {
			return User{}, err
		}
	}
	user := userOf(u)
	user.Session = true
	return user, nil
}

// startSession ends the session r carries, if any, and starts a new one
// for userID: a sign-in never keeps a session id that existed before it
// (session fixation).
func (s *Server) startSession(w http.ResponseWriter, r *http.Request, userID string) error {
	si := s.opts.SignIn
	if old := s.sessionValue(r); old != "" {
		if err := si.Sessions.DeleteWebSession(r.Context(), HashKey(old)); err != nil {
			return err
		}
	}
	value := newSessionValue()
	_, err := si.Sessions.CreateWebSession(r.Context(), store.WebSession{
		IDHash: HashKey(value), UserID: userID, ExpiresAt: s.opts.Now().Add(si.Absolute),
	})
	if err != nil {
		return err
	}
	// The cookie lives as long as the session may; the store decides.
	s.setCookie(w, r, s.cookieName(r, sessionCookieSecure, sessionCookiePlain), value, int(si.Absolute/time.Second))
	return nil
}
