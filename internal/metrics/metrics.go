// Package metrics is what jarvisbot tells Prometheus (issue 20): turns and
// their duration, tool calls by tier and outcome, how many tools the gate
// offered per turn, and gauges read from the store and the desk when
// scraped (approvals pending, deliveries kept for retry, queue depth).
//
// Each Metrics holds its own counts; nothing is global: two servers in
// one test process (or one process serving twice) keep their counts
// apart, and nothing another library registers leaks into /metrics.
//
// The package writes Prometheus' text format itself rather than linking
// Prometheus' Go client: metrics are off by default, and the client's
// package initialisation (compiled expressions, default registries) and
// its protobuf dependency cost every process memory and binary size
// whether or not anyone scrapes it. Nothing here runs before New.
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
	"strconv"
	"sync"
	"time"
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

// maxScrapes is how many scrapes run at once; a further one is refused
// with 503. A scrape is small; two at a time (two Prometheus servers)
// keep the gauges' store reads from piling up behind a slow database.
const maxScrapes = 2

// Metrics holds the counts the runtime feeds and what a scrape reads.
type Metrics struct {
	turns     *counterVec
	turnTime  *histogram
	toolCalls *counterVec
	offered   *histogram
	// The model calls: how many, the tokens the providers reported and
	// what they cost, by model.
	modelCalls *counterVec
	tokens     *counterVec
	cost       *counterVec
	info       family
	gauges     []scrapeGauge
	goSeries   []goSeries
	timeout    time.Duration
	procRoot   string        // /proc, or a test's stand-in
	scrapes    chan struct{} // a slot per scrape running
	log        *slog.Logger
}

// scrapeGauge is a gauge read on scrape.
type scrapeGauge struct {
	name, help string
	read       Gauge
}

// New builds jarvisbot's series with the process's and the Go runtime's
// beside them.
func New(o Options) (*Metrics, error) {
	if o.ScrapeTimeout <= 0 {
		o.ScrapeTimeout = 5 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	m := &Metrics{
		turns: newCounterVec("jarvisbot_turns_total",
			"Turns (one message answered, or a decided approval carried on) by outcome.",
			"outcome"),
		turnTime: newHistogram("jarvisbot_turn_duration_seconds",
			"How long a turn took, model calls and tool calls included (approval waits too).",
			// Turns run from a fraction of a second (a short answer) to
			// minutes (several steps, a delegate CLI, an approval).
			[]float64{0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600}),
		toolCalls: newCounterVec("jarvisbot_tool_calls_total",
			"Tool calls the model made, by tier (safe, monitor, ask; none when refused before a tier applied) and outcome.",
			"tier", "outcome"),
		offered: newHistogram("jarvisbot_gate_offered_tools",
			"How many tools the gate offered the model in a turn.",
			[]float64{0, 1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128}),
		modelCalls: newCounterVec("jarvisbot_model_calls_total",
			"Model calls by model (provider/model) and outcome (ok, error).",
			"model", "outcome"),
		tokens: newCounterVec("jarvisbot_model_tokens_total",
			"Tokens the providers reported, by model (provider/model) and kind (input, output, cache_read, cache_write).",
			"model", "kind"),
		cost: newCounterVec("jarvisbot_model_cost_usd_total",
			"What the model calls cost in US dollars by the price table, by model (provider/model); models with no price add nothing.",
			"model"),
		info: family{name: "jarvisbot_build_info", help: "Always 1; the labels say which build runs.", kind: kindGauge,
			samples: []sample{{labels: []label{{"goversion", runtime.Version()}, {"version", o.Version}}, value: 1}}},
		goSeries: goSeriesTable(),
		timeout:  o.ScrapeTimeout,
		procRoot: "/proc",
		scrapes:  make(chan struct{}, maxScrapes),
		log:      o.Logger,
	}
	for _, g := range []scrapeGauge{
		{"jarvisbot_approvals_pending", "Ask-tier requests waiting for the owner's decision.", o.ApprovalsPending},
		{"jarvisbot_deliveries_kept", "Replies and scheduled reports that could not be sent and are kept to be sent again.", o.DeliveriesKept},
		{"jarvisbot_queue_depth", "Received messages waiting on this replica for their turn.", o.QueueDepth},
		{"jarvisbot_inbox_waiting", "Received messages not answered yet, in the store all replicas share.", o.InboxWaiting},
	} {
		if g.read != nil {
			m.gauges = append(m.gauges, g)
		}
	}
	// The names are this package's constants; checking them here turns a
	// mistyped one into a failed start rather than scrapes Prometheus
	// rejects.
	names := []string{m.turns.name, m.turnTime.name, m.toolCalls.name, m.offered.name, m.info.name, m.modelCalls.name, m.tokens.name, m.cost.name}
	for _, c := range []*counterVec{m.turns, m.toolCalls, m.modelCalls, m.tokens, m.cost} {
		names = append(names, c.labels...)
	}
	for _, g := range m.gauges {
		names = append(names, g.name)
	}
	for _, n := range names {
		if err := checkName(n); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Handler serves the metrics in Prometheus' text format. A gauge that
// cannot be read is left out of that scrape and logged; the others are
// served. More than two scrapes at once are refused with 503 and
// Retry-After.
func (m *Metrics) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case m.scrapes <- struct{}{}:
			defer func() { <-m.scrapes }()
		default:
			w.Header().Set("Retry-After", "1")
			http.Error(w, fmt.Sprintf("metrics: %d scrapes are running already; try again in a second", maxScrapes), http.StatusServiceUnavailable)
			return
		}
		var body []byte
		for _, f := range m.gather(r.Context()) {
			body = f.appendText(body)
		}
		h := w.Header()
		h.Set("Content-Type", contentType)
		h.Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body) // the scraper went away: nothing to tell it
	})
}

// gather reads every family now, sorted by name.
func (m *Metrics) gather(ctx context.Context) []family {
	fs := []family{m.turns.family(), m.turnTime.family(), m.toolCalls.family(), m.offered.family(), m.info,
		m.modelCalls.family(), m.tokens.family(), m.cost.family()}
	fs = append(fs, m.readGauges(ctx)...)
	fs = append(fs, goFamilies(m.goSeries)...)
	proc, err := processFamilies(m.procRoot)
	if err != nil {
		m.log.Warn("metrics: some process_* series are left out of this scrape", "err", err)
	}
	fs = append(fs, proc...)
	sortFamilies(fs)
	return fs
}

// readGauges reads the gauges at once, each bounded by the scrape
// timeout (and by the scraper staying), and leaves out those that fail.
func (m *Metrics) readGauges(ctx context.Context) []family {
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	read := make([]*family, len(m.gauges))
	var wg sync.WaitGroup
	for i, g := range m.gauges {
		wg.Go(func() {
			n, err := g.read(ctx)
			if err != nil {
				m.log.Warn("metrics: a gauge could not be read; it is left out of this scrape", "metric", g.name, "err", err)
				return
			}
			f := one(g.name, g.help, kindGauge, float64(n))
			read[i] = &f
		})
	}
	wg.Wait()
	fs := make([]family, 0, len(read))
	for _, f := range read {
		if f != nil {
			fs = append(fs, *f)
		}
	}
	return fs
}

// TurnDone counts a finished turn. The outcomes are agents' fixed
// vocabulary (agents.TurnOK …), so no error text becomes a series.
// Agents are not a label: their names are the owner's, unbounded.
func (m *Metrics) TurnDone(_, outcome string, took time.Duration) {
	m.turns.inc([2]string{outcome})
	m.turnTime.observe(took.Seconds())
}

// ToolCalled counts one tool call; outcomes are agents' (agents.CallOK …).
func (m *Metrics) ToolCalled(_, tier, outcome string) {
	if tier == "" {
		tier = "none"
	}
	m.toolCalls.inc([2]string{tier, outcome})
}

// Offered records how many tools the gate offered a turn.
func (m *Metrics) Offered(n int) { m.offered.observe(float64(n)) }

// ModelCall is one model call as the counters take it.
type ModelCall struct {
	Provider, Model                                              string
	OK                                                           bool
	InputTokens, OutputTokens, CacheReadTokens, CacheWriteTokens int
	// Cost is in US dollars; 0 for a model with no price.
	Cost float64
}

// ModelCalled counts one model call, its tokens and its cost.
func (m *Metrics) ModelCalled(c ModelCall) {
	model := c.Provider + "/" + c.Model
	outcome := "ok"
	if !c.OK {
		outcome = "error"
	}
	m.modelCalls.inc([2]string{model, outcome})
	for _, t := range []struct {
		kind string
		n    int
	}{{"input", c.InputTokens}, {"output", c.OutputTokens}, {"cache_read", c.CacheReadTokens}, {"cache_write", c.CacheWriteTokens}} {
		if t.n > 0 {
			m.tokens.add([2]string{model, t.kind}, float64(t.n))
		}
	}
	if c.Cost > 0 {
		m.cost.add([2]string{model}, c.Cost)
	}
}
