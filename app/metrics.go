package app

import (
	"context"
	"log/slog"

	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/usage"
	"github.com/jarvisbot/jarvisbot/internal/metrics"
	"github.com/jarvisbot/jarvisbot/store"
)

// Metrics are the session's counts for /metrics (issue 20): its turns and
// tool calls, which the runtime reports from now on, and the gauges read
// from the store and the desk when scraped. Call it before any turn runs
// (serve builds the dashboard before it starts anything): the metrics join
// the runtime's observer here, beside the daily tally.
func (s *Session) Metrics(version string, log *slog.Logger) (*metrics.Metrics, error) {
	m, err := metrics.New(metrics.Options{
		Version: version,
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
		return nil, err
	}
	s.observe(m) // beside the daily tally (overview.go)
	s.runtime.Usage = meteredUsage{next: s.runtime.Usage, m: m, prices: s.Installation().Prices()}
	return m, nil
}

// meteredUsage records a model call and counts it for /metrics: its
// tokens, and its cost by the installation's price table.
type meteredUsage struct {
	next   agents.UsageRecorder
	m      *metrics.Metrics
	prices usage.Prices
}

func (u meteredUsage) RecordModelCall(ctx context.Context, c store.ModelCall) error {
	mc := metrics.ModelCall{Provider: c.Provider, Model: c.Model, OK: c.Outcome == "ok",
		InputTokens: c.InputTokens, OutputTokens: c.OutputTokens, CacheReadTokens: c.CacheReadTokens, CacheWriteTokens: c.CacheWriteTokens}
	if p, ok := u.prices.Lookup(c.Model); ok {
		mc.Cost = p.Cost(c)
	}
	u.m.ModelCalled(mc)
	if u.next == nil {
		return nil
	}
	return u.next.RecordModelCall(ctx, c)
}
