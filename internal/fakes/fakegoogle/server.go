// Package fakegoogle is a fake of the Google REST APIs jarvisbot's
// built-in Google plugins call (Calendar v3, Gmail v1, Drive v3), speaking
// the JSON shapes Google's REST APIs take and give (as its generated Go
// clients send and read them), so tests exercise the plugins' own
// requests with the endpoint moved to the fake. It checks each request's
// bearer token (against a fake authorization server when given one),
// pages lists with pageToken / nextPageToken, and can be told to fail
// requests the way Google does: 401 for a token it refuses, 429 and 5xx
// with Google's error body.
//
// It serves the tests of P6 (Calendar, Gmail, Drive).
package fakegoogle

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/fakes/restapi"
)

// Server is a running fake. URL is the root the APIs hang below:
// URL/calendar/v3/, URL/gmail/v1/, URL/drive/v3/ and URL/upload/drive/v3/.
type Server struct {
	URL string
	t   testing.TB
	srv *httptest.Server

	front restapi.Front

	mu sync.Mutex // guards the data below

	cal   *calendarData
	mail  *mailData
	drive *driveData
}

// An Option configures a Server.
type Option func(*Server)

// WithAuth makes the server accept only bearer tokens ok accepts, such as
// those a fakeoauth.AuthServer issued and did not revoke. Without it any
// non-empty bearer token is accepted.
func WithAuth(ok func(token string) bool) Option { return func(s *Server) { s.front.Auth = ok } }

// New starts a fake Google server, closed when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{t: t, cal: newCalendarData(), mail: newMailData(), drive: newDriveData()}
	s.front.Refuse = func(w http.ResponseWriter, _ string) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="https://accounts.google.com/", error="invalid_token"`)
		Error(w, http.StatusUnauthorized, "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.")
	}
	s.front.Fail = func(w http.ResponseWriter, status int, _ string) { Error(w, status, http.StatusText(status)) }
	for _, o := range opts {
		o(s)
	}
	s.srv = s.front.Start(t, s.calendarRoutes, s.gmailRoutes, s.driveRoutes)
	s.URL = s.srv.URL
	return s
}

// Requests returns "METHOD /path" of every request that passed the
// token check, in order.
func (s *Server) Requests() []string { return s.front.Requests() }

// Fail makes the next n requests whose method is method ("" for any) and
// whose path starts with prefix answer status with Google's error body;
// a 429 carries Retry-After: 0.
func (s *Server) Fail(method, prefix string, status, n int) {
	s.front.AddFault(method, prefix, status, "", n)
}

// Error writes Google's JSON error body.
func Error(w http.ResponseWriter, status int, message string) {
	reason, st := "backendError", "INTERNAL"
	switch status {
	case http.StatusBadRequest:
		reason, st = "badRequest", "INVALID_ARGUMENT"
	case http.StatusUnauthorized:
		reason, st = "authError", "UNAUTHENTICATED"
	case http.StatusForbidden:
		reason, st = "forbidden", "PERMISSION_DENIED"
	case http.StatusNotFound:
		reason, st = "notFound", "NOT_FOUND"
	case http.StatusConflict:
		reason, st = "conflict", "ALREADY_EXISTS"
	case http.StatusTooManyRequests:
		reason, st = "rateLimitExceeded", "RESOURCE_EXHAUSTED"
	case http.StatusServiceUnavailable:
		reason, st = "backendError", "UNAVAILABLE"
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"code":    status,
		"message": message,
		"errors":  []map[string]any{{"domain": "global", "reason": reason, "message": message}},
		"status":  st,
	}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the client went away; nothing to tell it
}

// page cuts items to the page pageToken points at, maxResults long (def
// when 0), and returns the token of the next page ("" on the last).
func page[T any](items []T, pageToken string, maxResults, def int) ([]T, string, error) {
	start := 0
	if pageToken != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(pageToken, "p"))
		if err != nil || n < 0 || n > len(items) || !strings.HasPrefix(pageToken, "p") {
			return nil, "", fmt.Errorf("invalid pageToken %q", pageToken)
		}
		start = n
	}
	if maxResults <= 0 {
		maxResults = def
	}
	end := min(start+maxResults, len(items))
	next := ""
	if end < len(items) {
		next = "p" + strconv.Itoa(end)
	}
	return items[start:end], next, nil
}
