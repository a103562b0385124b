// Package restapi holds what the fake APIs under internal/fakes share: the
// front fakegoogle and fakespotify put before their routes (the bearer
// token check, the faults a test injects, the log of the requests that got
// through), Call for their tests, and Copy for every fake's getters of
// what it recorded. Each fake keeps its own error body and routes.
package restapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Front guards a fake API's routes.
type Front struct {
	// Auth, when set, is the only judge of a bearer token; without it any
	// non-empty token is accepted. Set it before Start.
	Auth func(token string) bool
	// Refuse answers a request without a bearer token (tok is "") or with
	// one Auth does not accept.
	Refuse func(w http.ResponseWriter, tok string)
	// Fail answers a request a fault hit, in the API's error body; a 429
	// already carries Retry-After: 0.
	Fail func(w http.ResponseWriter, status int, reason string)

	mu       sync.Mutex
	faults   []*fault
	requests []string // "METHOD /path", in order
}

type fault struct {
	method, prefix string
	status         int
	reason         string
	left           int
}

// Start serves the routes behind the front until the test ends.
func (f *Front) Start(t testing.TB, routes ...func(*http.ServeMux)) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	for _, r := range routes {
		r(mux)
	}
	srv := httptest.NewServer(f.guard(mux))
	t.Cleanup(srv.Close)
	return srv
}

// AddFault makes the next n requests whose method is method ("" for any)
// and whose path starts with prefix fail with status; reason is passed to
// Fail.
func (f *Front) AddFault(method, prefix string, status int, reason string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = append(f.faults, &fault{method: method, prefix: prefix, status: status, reason: reason, left: n})
}

// Requests returns "METHOD /path" of every request that passed the token
// check and no fault hit, in order.
func (f *Front) Requests() []string { return Copy(&f.mu, &f.requests) }

// Copy returns a copy of *xs taken under mu, so that a test reads what a
// fake recorded while the fake's handlers go on appending.
func Copy[T any](mu *sync.Mutex, xs *[]T) []T {
	mu.Lock()
	defer mu.Unlock()
	return append([]T(nil), *xs...)
}

func (f *Front) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			tok = ""
		}
		if tok == "" || (f.Auth != nil && !f.Auth(tok)) {
			f.Refuse(w, tok)
			return
		}
		f.mu.Lock()
		var hit *fault
		for _, ft := range f.faults {
			if ft.left > 0 && (ft.method == "" || ft.method == r.Method) && strings.HasPrefix(r.URL.Path, ft.prefix) {
				ft.left--
				hit = ft
				break
			}
		}
		if hit == nil {
			f.requests = append(f.requests, r.Method+" "+r.URL.Path)
		}
		f.mu.Unlock()
		if hit != nil {
			if hit.status == http.StatusTooManyRequests {
				w.Header().Set("Retry-After", "0")
			}
			f.Fail(w, hit.status, hit.reason)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// JSON writes v as an OpenAI-style API does (the fakes fakellm and
// fakespeech serve): application/json, with <, > and & left literal.
func JSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // a failed write means the client is gone
}
