// Package metrics is what jarvisbot tells Prometheus (issue 20): turns and
// their duration, tool calls by tier and outcome, how many tools the gate
// offered per turn, and gauges read from the store and the desk when
// scraped (approvals pending, deliveries kept for retry, queue depth).
//
// Everything is registered on the package's own registry, never on
// client_golang's global default one: two servers in one test process
// (or one process serving twice) keep their counts apart, and nothing
// another library registers globally leaks into /metrics.
//
// The agents runtime feeds the counters through its own Observer
// interface, which *Metrics satisfies; agents does not import this
// package.
//
// It serves X4 and W1 for operators.
package metrics

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Gauge reads a current value on scrape. An error leaves the gauge out
// of that scrape (and is logged) rather than reporting a false zero.
type Gauge func(ctx context.Context) (int, error)

// Options are what the gauges read from, and what build_info says. A nil
// Gauge leaves its metric out.
type Options struct {
	Version string
	// ApprovalsPending counts ask-tier requests waiting for the owner.
	ApprovalsPending Gauge
	// DeliveriesKept counts replies and reports kept to be sent again.
	DeliveriesKept Gauge
	// QueueDepth counts received messages waiting on this replica for
	// their turn.
	QueueDepth Gauge
	// InboxWaiting counts received messages not answered yet in the
	// store; replicas on one PostgreSQL share the inbox, so each reports
	// the same number.
	InboxWaiting Gauge
	// ScrapeTimeout bounds the gauges' reads; default 5 s.
	ScrapeTimeout time.Duration
	Logger        *slog.Logger
}

// Metrics holds the registry and the instruments the runtime feeds.
type Metrics struct {
	reg       *prometheus.Registry
	turns     *prometheus.CounterVec
	turnTime  prometheus.Histogram
	toolCalls *prometheus.CounterVec
	offered   prometheus.Histogram
	log       *slog.Logger
}

// New builds the registry with the process's and Go runtime's own
// collectors beside jarvisbot's.
func New(o Options) (*Metrics, error) {
	if o.ScrapeTimeout <= 0 {
		o.ScrapeTimeout = 5 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		log: o.Logger,
		turns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "jarvisbot_turns_total",
			Help: "Turns (one message answered, or a decided approval carried on) by outcome.",
		}, []string{"outcome"}),
		turnTime: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "jarvisbot_turn_duration_seconds",
			Help: "How long a turn took, model calls and tool calls included (approval waits too).",
			// Turns run from a fraction of a second (a short answer) to
			// minutes (several steps, a delegate CLI, an approval).
			Buckets: []float64{0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600},
		}),
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "jarvisbot_tool_calls_total",
			Help: "Tool calls the model made, by tier (safe, monitor, ask; none when refused before a tier applied) and outcome.",
		}, []string{"tier", "outcome"}),
		offered: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "jarvisbot_gate_offered_tools",
			Help:    "How many tools the gate offered the model in a turn.",
			Buckets: []float64{0, 1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128},
		}),
	}
	info := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "jarvisbot_build_info",
		Help:        "Always 1; the labels say which build runs.",
		ConstLabels: prometheus.Labels{"version": o.Version, "goversion": runtime.Version()},
	})
	info.Set(1)
	cs := []prometheus.Collector{m.turns, m.turnTime, m.toolCalls, m.offered, info,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	}
	for _, g := range []struct {
		name, help string
		read       Gauge
	}{
		{"jarvisbot_approvals_pending", "Ask-tier requests waiting for the owner's decision.", o.ApprovalsPending},
		{"jarvisbot_deliveries_kept", "Replies and scheduled reports that could not be sent and are kept to be sent again.", o.DeliveriesKept},
		{"jarvisbot_queue_depth", "Received messages waiting on this replica for their turn.", o.QueueDepth},
		{"jarvisbot_inbox_waiting", "Received messages not answered yet, in the store all replicas share.", o.InboxWaiting},
	} {
		if g.read != nil {
			cs = append(cs, &gauge{desc: prometheus.NewDesc(g.name, g.help, nil, nil), read: g.read, timeout: o.ScrapeTimeout})
		}
	}
	for _, c := range cs {
		if err := m.reg.Register(c); err != nil {
			return nil, fmt.Errorf("metrics: registering a collector: %w", err)
		}
	}
	return m, nil
}

// Handler serves the registry in Prometheus' text (or negotiated)
// format. A gauge that cannot be read is left out of that scrape, the
// others are served.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorLog:      logAdapter{m.log},
		ErrorHandling: promhttp.ContinueOnError,
		// A scrape is small; two at a time (two Prometheus servers) keep
		// the gauges' store reads from piling up behind a slow database.
		MaxRequestsInFlight: 2,
	})
}

// Registry is the registry, for tests and for a caller that adds its
// own collectors.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// TurnDone counts a finished turn. The outcomes are agents' fixed
// vocabulary (agents.TurnOK …), so no error text becomes a series.
func (m *Metrics) TurnDone(outcome string, took time.Duration) {
	m.turns.WithLabelValues(outcome).Inc()
	m.turnTime.Observe(took.Seconds())
}

// ToolCalled counts one tool call; outcomes are agents' (agents.CallOK …).
func (m *Metrics) ToolCalled(tier, outcome string) {
	if tier == "" {
		tier = "none"
	}
	m.toolCalls.WithLabelValues(tier, outcome).Inc()
}

// Offered records how many tools the gate offered a turn.
func (m *Metrics) Offered(n int) { m.offered.Observe(float64(n)) }

// gauge is a gauge read on scrape, with a context the scrape's own lacks
// (prometheus.GaugeFunc has none) and room to say the read failed.
type gauge struct {
	desc    *prometheus.Desc
	read    Gauge
	timeout time.Duration
}

func (g *gauge) Describe(ch chan<- *prometheus.Desc) { ch <- g.desc }

func (g *gauge) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
	defer cancel()
	n, err := g.read(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(g.desc, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(g.desc, prometheus.GaugeValue, float64(n))
}

// logAdapter is promhttp's error log on slog.
type logAdapter struct{ log *slog.Logger }

func (l logAdapter) Println(v ...any) { l.log.Warn("metrics: " + fmt.Sprint(v...)) }
