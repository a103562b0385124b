package web

import (
	"context"
	"net/http"
	"time"
)

// Probes are the operator's endpoints on the dashboard's listener
// (issue 20): /healthz says the process serves HTTP, /readyz whether this
// replica should take traffic, /metrics (when on) what Prometheus
// scrapes. They need no sign-in and answer whatever Host header a
// prober sends (a kubelet or a container's health check uses an address,
// not the dashboard's name); they show nothing private: a status and a
// short fixed reason.
type Probes struct {
	// Ready returns nil when the replica is ready, else why not. Its
	// message is shown to anyone who asks: a short fixed phrase, never an
	// error's details (log those).
	Ready func(ctx context.Context) error
	// Notes are said after "ready", one a line: what this replica does
	// without (a listener whose default address was taken). nil is none.
	Notes func() []string
	// Metrics serves /metrics; nil leaves it unserved (404), the default.
	Metrics http.Handler
	// BehindProxy refuses /metrics to requests a proxy forwarded, so that
	// the proxy in front of the dashboard does not publish the metrics:
	// Prometheus scrapes the replica directly.
	BehindProxy bool
}

// readyTimeout bounds a readiness check: a probe that hangs is a probe
// that fails, and the prober's own timeout is often a second.
const readyTimeout = 2 * time.Second

// Wrap serves the probes, and every other path with next.
func (p Probes) Wrap(next http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		plain(w, http.StatusOK, "ok")
	})
	mux.HandleFunc("GET /readyz", p.ready)
	mux.HandleFunc("GET /metrics", p.metrics)
	mux.Handle("/", next)
	return mux
}

func (p Probes) ready(w http.ResponseWriter, r *http.Request) {
	if p.Ready == nil {
		plain(w, http.StatusOK, "ready")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	if err := p.Ready(ctx); err != nil {
		w.Header().Set("Retry-After", "1")
		plain(w, http.StatusServiceUnavailable, "not ready: "+err.Error())
		return
	}
	msg := "ready"
	if p.Notes != nil {
		for _, n := range p.Notes() {
			msg += "\nbut " + n
		}
	}
	plain(w, http.StatusOK, msg)
}

func (p Probes) metrics(w http.ResponseWriter, r *http.Request) {
	if p.Metrics == nil {
		plain(w, http.StatusNotFound, "metrics are off: set web.metrics (or JARVIS_WEB_METRICS=1) to serve them")
		return
	}
	if p.BehindProxy && forwarded(r) {
		plain(w, http.StatusForbidden, "metrics are not served through the proxy: scrape this replica's listener directly")
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	p.Metrics.ServeHTTP(w, r)
}

// forwarded reports whether a proxy passed the request on: any of the
// headers proxies add naming the client.
func forwarded(r *http.Request) bool {
	for _, h := range []string{"X-Forwarded-For", "Forwarded", "X-Real-Ip"} {
		if r.Header.Get(h) != "" {
			return true
		}
	}
	return false
}

// plain writes a short text answer that no cache keeps.
func plain(w http.ResponseWriter, status int, msg string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(msg + "\n")) // the prober went away: nothing to tell it
}
