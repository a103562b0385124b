package web

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// TestProbes pins the operator's endpoints (issue 20): /healthz and
// /readyz answer without sign-in and whatever the Host header, /readyz
// says 503 with a short reason while not ready, /metrics is off unless
// given, and behind a proxy it refuses what the proxy forwards; the
// dashboard's own pages still want a sign-in and their own name.
func TestProbes(t *testing.T) {
	db, err := sqlstore.Open(context.Background(), filepath.Join(t.TempDir(), "j.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	dash, err := New(Options{Logins: db, Hosts: []string{"jarvis.example.org"}})
	if err != nil {
		t.Fatal(err)
	}
	var notReady atomic.Pointer[error]
	ready := func(context.Context) error {
		if p := notReady.Load(); p != nil {
			return *p
		}
		return nil
	}
	scrape := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "jarvisbot_turns_total 1\n") })

	type req struct {
		path    string
		headers map[string]string
		status  int
		body    string // a part of the answer
	}
	tests := []struct {
		name     string
		probes   Probes
		notReady error
		reqs     []req
	}{
		{
			name:   "ready, metrics off",
			probes: Probes{Ready: ready},
			reqs: []req{
				{path: "/healthz", status: 200, body: "ok"},
				{path: "/readyz", status: 200, body: "ready"},
				{path: "/metrics", status: 404, body: "web.metrics"},
				{path: "/plugins", headers: map[string]string{"Host": "jarvis.example.org"}, status: 401, body: "Sign in"},
				{path: "/plugins", status: http.StatusMisdirectedRequest},
			},
		},
		{
			name:     "not ready",
			probes:   Probes{Ready: ready},
			notReady: errors.New("draining: this replica is stopping"),
			reqs: []req{
				{path: "/healthz", status: 200, body: "ok"},
				{path: "/readyz", status: 503, body: "not ready: draining"},
			},
		},
		{
			name:   "metrics on",
			probes: Probes{Ready: ready, Metrics: scrape},
			reqs: []req{
				{path: "/metrics", status: 200, body: "jarvisbot_turns_total"},
				{path: "/metrics", headers: map[string]string{"X-Forwarded-For": "203.0.113.9"}, status: 200, body: "jarvisbot_turns_total"},
			},
		},
		{
			name:   "metrics on behind a proxy",
			probes: Probes{Ready: ready, Metrics: scrape, BehindProxy: true},
			reqs: []req{
				{path: "/metrics", status: 200, body: "jarvisbot_turns_total"},
				{path: "/metrics", headers: map[string]string{"X-Forwarded-For": "203.0.113.9"}, status: 403, body: "directly"},
				{path: "/metrics", headers: map[string]string{"Forwarded": "for=203.0.113.9"}, status: 403},
				{path: "/healthz", headers: map[string]string{"X-Forwarded-For": "203.0.113.9"}, status: 200},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.notReady != nil {
				notReady.Store(&tt.notReady)
			} else {
				notReady.Store(nil)
			}
			srv := httptest.NewServer(tt.probes.Wrap(dash.Handler()))
			defer srv.Close()
			for _, rq := range tt.reqs {
				r, err := http.NewRequest("GET", srv.URL+rq.path, nil)
				if err != nil {
					t.Fatal(err)
				}
				for k, v := range rq.headers {
					if k == "Host" {
						r.Host = v
						continue
					}
					r.Header.Set(k, v)
				}
				res, err := client().Do(r)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != rq.status || !strings.Contains(string(b), rq.body) {
					t.Errorf("GET %s %v: %d %q, want %d with %q", rq.path, rq.headers, res.StatusCode, b, rq.status, rq.body)
				}
				if strings.HasPrefix(rq.path, "/healthz") || strings.HasPrefix(rq.path, "/readyz") {
					if cc := res.Header.Get("Cache-Control"); cc != "no-store" {
						t.Errorf("GET %s: Cache-Control %q, want no-store", rq.path, cc)
					}
					if len(res.Cookies()) > 0 {
						t.Errorf("GET %s set cookies: %v", rq.path, res.Cookies())
					}
				}
			}
		})
	}
}
