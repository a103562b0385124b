package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/metrics"
	"github.com/jarvisbot/jarvisbot/web"
)

// readiness is what serve's /readyz tells a balancer or an orchestrator
// (issue 20): ready once the channels started, not while the replica
// stops, and only while the store answers.
type readiness struct {
	started  atomic.Bool // the channels were started
	draining atomic.Bool // shutdown began: no new work should come here
	// storeDown remembers the last ping's outcome, so that a store that
	// stops answering is logged once, not at every probe.
	storeDown atomic.Bool
	// missing are the listeners on a default address that was taken,
	// each with why; deaf ones (Telegram's webhook) keep the replica
	// not ready, since it receives nothing.
	mu      sync.Mutex
	missing []string
	deaf    []string
}

// notServed records a listener left out at start-up (its default address
// was taken): /readyz says it, and when deaf (the replica cannot receive
// without it) answers not ready.
func (r *readiness) notServed(reason string, deaf bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if deaf {
		r.deaf = append(r.deaf, reason)
		return
	}
	r.missing = append(r.missing, reason)
}

// notes are what /readyz adds to "ready": the listeners not served.
func (r *readiness) notes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.missing)
}

// The reasons /readyz gives: short, fixed, nothing private.
var (
	errStarting = errors.New("starting: the channels are not started yet")
	errDraining = errors.New("draining: this replica is stopping")
	errNoStore  = errors.New("the store does not answer")
)

// check is /readyz's answer.
func (r *readiness) check(ctx context.Context, ping func(context.Context) error, log *slog.Logger) error {
	switch {
	case r.draining.Load():
		return errDraining
	case !r.started.Load():
		return errStarting
	}
	r.mu.Lock()
	deaf := slices.Clone(r.deaf)
	r.mu.Unlock()
	if len(deaf) > 0 {
		return errors.New(strings.Join(deaf, "; "))
	}
	if err := ping(ctx); err != nil {
		if !r.storeDown.Swap(true) {
			log.Error("the store does not answer: /readyz says not ready until it does", "err", err)
		}
		return errNoStore
	}
	if r.storeDown.Swap(false) {
		log.Info("the store answers again: /readyz says ready")
	}
	return nil
}

// untilStarted serves the dashboard once the channels started, and a
// short 503 before: the listener opens early so that probes answer during
// start-up, while the dashboard's pages (an approval decided before the
// pending ones are taken up) wait for the service they act on.
func untilStarted(r *readiness, dash http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !r.started.Load() {
			w.Header().Set("Retry-After", "2")
			http.Error(w, "jarvisbot is starting; the dashboard opens in a moment.", http.StatusServiceUnavailable)
			return
		}
		dash.ServeHTTP(w, req)
	})
}

// probes are the operator's endpoints over the session: readiness, and
// the metrics when web.metrics is on, whose runtime counts start here.
func (a *app) probes(cfg config.Config, s *session, log *slog.Logger) (web.Probes, error) {
	p := web.Probes{
		Ready:       func(ctx context.Context) error { return s.ready.check(ctx, s.db.Ping, log) },
		Notes:       s.ready.notes,
		BehindProxy: cfg.Web.BehindProxy,
	}
	if !cfg.Web.Metrics {
		return p, nil
	}
	m, err := metrics.New(metrics.Options{
		Version: buildVersion(),
		ApprovalsPending: func(ctx context.Context) (int, error) {
			l, err := s.db.PendingApprovals(ctx)
			return len(l), err
		},
		DeliveriesKept: func(ctx context.Context) (int, error) {
			replies, err := s.db.Undelivered(ctx)
			if err != nil {
				return 0, err
			}
			reports, err := s.db.UndeliveredRuns(ctx)
			return len(replies) + len(reports), err
		},
		QueueDepth: func(context.Context) (int, error) { return s.desk.Queued(), nil },
		InboxWaiting: func(ctx context.Context) (int, error) {
			l, err := s.db.Waiting(ctx)
			return len(l), err
		},
		Logger: log,
	})
	if err != nil {
		return p, err
	}
	// Set before any turn runs: serve builds the dashboard before it
	// starts anything.
	s.rt.Observer = m
	p.Metrics = m.Handler()
	return p, nil
}
