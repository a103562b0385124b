package main

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/metrics"
	"github.com/jarvisbot/jarvisbot/web"
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
func (a *cli) probes(cfg config.Config, s *app.Session, log *slog.Logger) (web.Probes, error) {
	p := web.Probes{
		Ready:       func(ctx context.Context) error { return s.Ready.Check(ctx, s.DB.Ping, log) },
		Notes:       s.Ready.Notes,
		BehindProxy: cfg.Web.BehindProxy,
	}
	if !cfg.Web.Metrics {
		return p, nil
	}
	m, err := metrics.New(metrics.Options{
		Version: buildVersion(),
		ApprovalsPending: func(ctx context.Context) (int, error) {
			l, err := s.DB.PendingApprovals(ctx)
			return len(l), err
		},
		DeliveriesKept: func(ctx context.Context) (int, error) {
			replies, err := s.DB.Undelivered(ctx)
			if err != nil {
				return 0, err
			}
			reports, err := s.DB.UndeliveredRuns(ctx)
			return len(replies) + len(reports), err
		},
		QueueDepth: func(context.Context) (int, error) { return s.Desk.Queued(), nil },
		InboxWaiting: func(ctx context.Context) (int, error) {
			l, err := s.DB.Waiting(ctx)
			return len(l), err
		},
		Logger: log,
	})
	if err != nil {
		return p, err
	}
	// Set before any turn runs: serve builds the dashboard before it
	// starts anything.
	s.Runtime.Observer = m
	p.Metrics = m.Handler()
	return p, nil
}
