package web

import (
	"context"
	"net/http"

	"github.com/jarvisbot/jarvisbot/app"
)

// untilStarted serves the dashboard once the channels started, and a
// short 503 before: the listener opens early so that probes answer during
// start-up, while the dashboard's pages (an approval decided before the
// pending ones are taken up) wait for the service they act on.
func untilStarted(r *app.Readiness, dash http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !r.Started.Load() {
			w.Header().Set("Retry-After", "2")
			http.Error(w, "jarvisbot is starting; the dashboard opens in a moment.", http.StatusServiceUnavailable)
			return
		}
		dash.ServeHTTP(w, req)
	})
}

// probes are the operator's endpoints over the session: app.Readiness, and
// the metrics when web.metrics is on, whose runtime counts start here.
func (o Serving) probes(s *app.Session) (Probes, error) {
	p := Probes{
		Ready:       func(ctx context.Context) error { return s.Ready.Check(ctx, s.DB.Ping, o.Logger) },
		Notes:       s.Ready.Notes,
		BehindProxy: o.BehindProxy,
	}
	if !o.Metrics {
		return p, nil
	}
	// Set before any turn runs: serve builds the dashboard before it
	// starts anything.
	m, err := s.Metrics(o.Version, o.Logger)
	if err != nil {
		return p, err
	}
	p.Metrics = m.Handler()
	return p, nil
}
