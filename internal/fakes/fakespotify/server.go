// Package fakespotify is a fake of the Spotify Web API endpoints
// jarvisbot's built-in Spotify plugin calls: the player (state, devices,
// play, pause, next, previous, queue, volume, transfer), search, and the
// owner's playlists. It speaks the real JSON shapes, including Spotify's
// error body {"error":{"status","message","reason"}}, and answers like
// Spotify where it matters: 204 when nothing plays, 404 NO_ACTIVE_DEVICE
// when a player command finds no active device, 403 PREMIUM_REQUIRED for
// an account without Premium, 401 for a token it refuses, and search
// limits of Development Mode apps (at most 10 per type).
//
// A test seeds the catalog (tracks, playlists) and the devices, then
// inspects what the player did (Player, Devices, Requests).
//
// It serves the tests of P6 (Spotify).
package fakespotify

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Server is a running fake.
type Server struct {
	// URL is the Web API's base, http://127.0.0.1:PORT/v1/: what the
	// plugin's Options.Endpoint takes.
	URL string
	srv *httptest.Server

	mu         sync.Mutex
	auth       func(token string) bool
	notPremium bool
	faults     []*fault
	requests   []string // "METHOD /path", in order

	tracks    []Track
	playlists []Playlist
	devices   []Device
	player    player
}

// An Option configures a Server.
type Option func(*Server)

// WithAuth makes the server accept only bearer tokens ok accepts (see
// Only); others get 401. Without it any non-empty bearer token is accepted.
func WithAuth(ok func(token string) bool) Option { return func(s *Server) { s.auth = ok } }

// Only accepts exactly the given tokens, for WithAuth.
func Only(tokens ...string) func(string) bool {
	return func(tok string) bool { return slices.Contains(tokens, tok) }
}

// WithoutPremium makes the account a free one: every player command
// answers 403 PREMIUM_REQUIRED, as Spotify does; reading still works.
func WithoutPremium() Option { return func(s *Server) { s.notPremium = true } }

// New starts a fake Spotify Web API, closed when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{}
	for _, o := range opts {
		o(s)
	}
	mux := http.NewServeMux()
	s.playerRoutes(mux)
	s.catalogRoutes(mux)
	s.srv = httptest.NewServer(s.guard(mux))
	s.URL = s.srv.URL + "/v1/"
	t.Cleanup(s.srv.Close)
	return s
}

// Requests returns "METHOD /path" of every request that passed the token
// check and no fault hit, in order.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

type fault struct {
	method, prefix string
	status         int
	reason         string
	left           int
}

// Fail makes the next n requests whose method is method ("" for any) and
// whose path starts with prefix (such as "/v1/me/player") answer status
// with Spotify's error body; a 429 carries Retry-After: 0.
func (s *Server) Fail(method, prefix string, status, n int) {
	s.FailReason(method, prefix, status, "", n)
}

// FailReason is Fail with a reason in the error body, such as
// "QUOTA_EXCEEDED" for a 429.
func (s *Server) FailReason(method, prefix string, status int, reason string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &fault{method: method, prefix: prefix, status: status, reason: reason, left: n})
}

// guard checks the bearer token and applies faults before the API sees a
// request.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		s.mu.Lock()
		check := s.auth
		s.mu.Unlock()
		if !ok || tok == "" {
			Error(w, http.StatusUnauthorized, "No token provided", "")
			return
		}
		if check != nil && !check(tok) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="spotify", error="invalid_token", error_description="Invalid access token"`)
			Error(w, http.StatusUnauthorized, "Invalid access token", "")
			return
		}
		s.mu.Lock()
		var hit *fault
		for _, f := range s.faults {
			if f.left > 0 && (f.method == "" || f.method == r.Method) && strings.HasPrefix(r.URL.Path, f.prefix) {
				f.left--
				hit = f
				break
			}
		}
		if hit == nil {
			s.requests = append(s.requests, r.Method+" "+r.URL.Path)
		}
		s.mu.Unlock()
		if hit != nil {
			msg := http.StatusText(hit.status)
			if hit.status == http.StatusTooManyRequests {
				w.Header().Set("Retry-After", "0")
				msg = "API rate limit exceeded"
			}
			Error(w, hit.status, msg, hit.reason)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Error writes Spotify's JSON error body; reason is left out when empty,
// as Spotify does outside the player.
func Error(w http.ResponseWriter, status int, message, reason string) {
	e := map[string]any{"status": status, "message": message}
	if reason != "" {
		e["reason"] = reason
	}
	writeJSON(w, status, map[string]any{"error": e})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the client went away; nothing to tell it
}
