package web

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Logins keeps the hashes of sign-in links and sessions (store.WebLogins).
type Logins interface {
	AddWebLink(ctx context.Context, hash string, expires time.Time) error
	TakeWebLink(ctx context.Context, hash string, now time.Time) (bool, error)
	AddWebSession(ctx context.Context, hash string, expires time.Time) error
	WebSession(ctx context.Context, hash string, now time.Time) (bool, error)
	EndWebSession(ctx context.Context, hash string) error
}

// How long a sign-in link and a session last.
const (
	LinkTTL    = 10 * time.Minute
	SessionTTL = 14 * 24 * time.Hour
)

const sessionCookie = "jarvisbot_session"

// NewLink records a one-time sign-in link and returns it: base (the
// dashboard's address as the owner opens it) with /login and the token.
// The link works once, within LinkTTL.
func NewLink(ctx context.Context, logins Logins, base string, now time.Time) (string, error) {
	token, err := newToken()
	if err != nil {
		return "", err
	}
	if err := logins.AddWebLink(ctx, hashToken(token), now.Add(LinkTTL)); err != nil {
		return "", err
	}
	return strings.TrimRight(base, "/") + "/login?token=" + url.QueryEscape(token), nil
}

// newToken is 32 random bytes in hex: safe in a URL, and inert in every
// chat's formatting. A sign-in link is sent through the chat's Markdown,
// which took a base64 token's "__" or "_…_" for emphasis and broke about
// one link in seven.
func newToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("making a token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// hashToken is what the store keeps of a link or session token.
func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// csrfOf is the CSRF token of a session: derived from the session token
// (so nothing more is kept), and not from its stored hash (so a copy of
// the database cannot forge it).
func csrfOf(token string) string {
	sum := sha256.Sum256([]byte("jarvisbot dashboard csrf\x00" + token))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// signedIn is a request's session.
type signedIn struct {
	hash string
	csrf string
}

type sessionKey struct{}

func withSession(ctx context.Context, s signedIn) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

func sessionFrom(ctx context.Context) (signedIn, bool) {
	s, ok := ctx.Value(sessionKey{}).(signedIn)
	return s, ok
}

// session is the request's live session, if its cookie names one.
func (s *Server) session(r *http.Request) (signedIn, bool) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return signedIn{}, false
	}
	h := hashToken(c.Value)
	ok, err := s.o.Logins.WebSession(r.Context(), h, s.o.Now())
	if err != nil {
		s.o.Logger.Error("dashboard: looking up a session", "err", err)
		return signedIn{}, false
	}
	if !ok {
		return signedIn{}, false
	}
	return signedIn{hash: h, csrf: csrfOf(c.Value)}, true
}

// sameOrigin checks a change: the session's CSRF token in the form (or in
// the X-CSRF-Token header htmx may send), and no other site's Origin.
func (s *Server) sameOrigin(r *http.Request, sess signedIn) bool {
	if o := r.Header.Get("Origin"); o != "" && o != "null" {
		u, err := url.Parse(o)
		if err != nil || u.Host != r.Host {
			return false
		}
	}
	got := r.Header.Get("X-CSRF-Token")
	if got == "" {
		got = r.PostFormValue("csrf")
	}
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(sess.csrf)) == 1
}

// secure reports whether cookies must be Secure for r.
func (s *Server) secure(r *http.Request) bool { return s.o.Secure || r.TLS != nil }

// signInFirst answers a request without a session: the page says how to
// get a link; a change is refused outright.
func (s *Server) signInFirst(w http.ResponseWriter, r *http.Request) {
	s.execute(w, r, "login", "Sign in", loginPage(loginView{}), http.StatusUnauthorized)
}

// loginView is the sign-in page's data.
type loginView struct {
	Token   string // the link's token, carried to the form that uses it
	Refused string // why a link did not sign in
}

// loginForm shows the link's button. Opening a link does not use it up:
// only the button's post does, so a link preview or a prefetch cannot
// spend it, and the post (from this page) sets a SameSite=Strict cookie
// that the next page is sent with.
func (s *Server) loginForm(w http.ResponseWriter, r *http.Request) {
	s.execute(w, r, "login", "Sign in", loginPage(loginView{Token: r.URL.Query().Get("token")}), http.StatusOK)
}

// login turns a one-time link into a session.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	token := r.PostFormValue("token")
	if token == "" {
		s.execute(w, r, "login", "Sign in", loginPage(loginView{Refused: "This sign-in form has no link token."}), http.StatusBadRequest)
		return
	}
	now := s.o.Now()
	ok, err := s.o.Logins.TakeWebLink(r.Context(), hashToken(token), now)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !ok {
		s.execute(w, r, "login", "Sign in", loginPage(loginView{Refused: "This sign-in link is used up or has expired (a link works once, within 10 minutes)."}), http.StatusForbidden)
		return
	}
	sess, err := newToken()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.o.Logins.AddWebSession(r.Context(), hashToken(sess), now.Add(SessionTTL)); err != nil {
		s.fail(w, r, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: sess, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: s.secure(r), MaxAge: int(SessionTTL / time.Second)})
	s.o.Logger.Info("dashboard: signed in by link")
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// logout ends the session; it needs the CSRF token like every change, so
// no other site can sign the owner out.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	sess, ok := sessionFrom(r.Context())
	if ok {
		if err := s.o.Logins.EndWebSession(r.Context(), sess.hash); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: s.secure(r)})
	s.execute(w, r, "login", "Signed out", loginPage(loginView{Refused: "Signed out."}), http.StatusOK)
}

// encodeNote and decodeNote carry a note through its cookie.
func encodeNote(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func decodeNote(v string) string {
	b, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return ""
	}
	return string(b)
}
