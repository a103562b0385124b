package metrics

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestMetricsCountTurnsAndCalls: what the runtime reports is what a
// scrape shows, labelled by outcome and tier.
func TestMetricsCountTurnsAndCalls(t *testing.T) {
	m, err := New(Options{Version: "v1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	m.TurnDone("", "ok", 1500*time.Millisecond)
	m.TurnDone("", "ok", 200*time.Millisecond)
	m.TurnDone("", "error", time.Second)
	m.ToolCalled("", "safe", "ok")
	m.ToolCalled("", "ask", "denied")
	m.ToolCalled("", "", "refused")
	m.Offered(7)

	fams := parse(t, scrape(t, m))
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"jarvisbot_turns_total", map[string]string{"outcome": "ok"}, 2},
		{"jarvisbot_turns_total", map[string]string{"outcome": "error"}, 1},
		{"jarvisbot_tool_calls_total", map[string]string{"tier": "safe", "outcome": "ok"}, 1},
		{"jarvisbot_tool_calls_total", map[string]string{"tier": "ask", "outcome": "denied"}, 1},
		{"jarvisbot_tool_calls_total", map[string]string{"tier": "none", "outcome": "refused"}, 1},
		{"jarvisbot_build_info", map[string]string{"version": "v1.2.3", "goversion": runtime.Version()}, 1},
	} {
		mt := find(t, fams, c.name, c.labels)
		got := mt.GetCounter().GetValue()
		if mt.Gauge != nil {
			got = mt.GetGauge().GetValue()
		}
		if got != c.want {
			t.Errorf("%s%v: %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if n := len(fams["jarvisbot_turns_total"].GetMetric()); n != 2 {
		t.Errorf("jarvisbot_turns_total has %d series, want 2 (ok, error)", n)
	}
	turns := find(t, fams, "jarvisbot_turn_duration_seconds", nil).GetHistogram()
	if turns.GetSampleCount() != 3 || math.Abs(turns.GetSampleSum()-2.7) > 1e-9 {
		t.Errorf("turn durations: count %d sum %v, want 3 and 2.7", turns.GetSampleCount(), turns.GetSampleSum())
	}
	offered := find(t, fams, "jarvisbot_gate_offered_tools", nil).GetHistogram()
	if offered.GetSampleCount() != 1 || offered.GetSampleSum() != 7 {
		t.Errorf("offered tools: count %d sum %v, want 1 and 7", offered.GetSampleCount(), offered.GetSampleSum())
	}
}

// TestMetricsGaugesReadOnScrape: the gauges are read when scraped; one
// that cannot be read is left out, not shown as zero, logged, and the
// rest are served.
func TestMetricsGaugesReadOnScrape(t *testing.T) {
	var logged bytes.Buffer
	pending := 0
	m, err := New(Options{
		ApprovalsPending: func(context.Context) (int, error) { return pending, nil },
		DeliveriesKept:   func(context.Context) (int, error) { return 3, nil },
		QueueDepth:       func(context.Context) (int, error) { return 0, errors.New("the store is down") },
		Logger:           slog.New(slog.NewTextHandler(&logged, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	pending = 2
	fams := parse(t, scrape(t, m))
	for name, want := range map[string]float64{"jarvisbot_approvals_pending": 2, "jarvisbot_deliveries_kept": 3} {
		if got := find(t, fams, name, nil).GetGauge().GetValue(); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
		if typ := fams[name].GetType(); typ != dto.MetricType_GAUGE {
			t.Errorf("%s is a %v, want a gauge", name, typ)
		}
	}
	if _, ok := fams["jarvisbot_queue_depth"]; ok {
		t.Error("a gauge that failed to read is shown")
	}
	if _, ok := fams["jarvisbot_inbox_waiting"]; ok {
		t.Error("a gauge with no reader is shown")
	}
	if l := logged.String(); !strings.Contains(l, "jarvisbot_queue_depth") || !strings.Contains(l, "the store is down") {
		t.Errorf("the failed read is not logged with its metric and cause:\n%s", l)
	}
}

// TestMetricsGaugeTimeout: a read that outlasts the scrape timeout is cut
// off by its context and left out; the scrape still answers.
func TestMetricsGaugeTimeout(t *testing.T) {
	m, err := New(Options{
		ApprovalsPending: func(ctx context.Context) (int, error) { <-ctx.Done(); return 0, ctx.Err() },
		DeliveriesKept:   func(context.Context) (int, error) { return 1, nil },
		ScrapeTimeout:    time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	fams := parse(t, scrape(t, m))
	if _, ok := fams["jarvisbot_approvals_pending"]; ok {
		t.Error("a gauge whose read timed out is shown")
	}
	if find(t, fams, "jarvisbot_deliveries_kept", nil).GetGauge().GetValue() != 1 {
		t.Error("the gauge that was read is not served")
	}
}

// TestMetricsOwnRegistry: two Metrics count apart (nothing global).
func TestMetricsOwnRegistry(t *testing.T) {
	a, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	a.TurnDone("", "ok", time.Second)
	if got := b.turns.value([2]string{"ok"}); got != 0 {
		t.Errorf("b counted a's turn: %v", got)
	}
	if _, ok := parse(t, scrape(t, b))["jarvisbot_turns_total"]; ok {
		t.Error("b's scrape shows a's turn")
	}
}

// TestScrapeIsPrometheusText: Prometheus' own parser reads a whole
// scrape, with the content type it expects and every family typed as
// dashboards for a Go service assume.
func TestScrapeIsPrometheusText(t *testing.T) {
	m, err := New(Options{Version: "dev", ApprovalsPending: func(context.Context) (int, error) { return 0, nil }})
	if err != nil {
		t.Fatal(err)
	}
	m.TurnDone("", "ok", time.Second)
	m.ToolCalled("", "safe", "ok")
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if ct := rec.Header().Get("Content-Type"); ct != "text/plain; version=0.0.4; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if got := expfmt.ResponseFormat(rec.Header()); got.FormatType() != expfmt.TypeTextPlain {
		t.Errorf("Prometheus reads the response as %v, not its text format", got)
	}
	fams := parse(t, rec.Body.String())
	want := map[string]dto.MetricType{
		"jarvisbot_turns_total":           dto.MetricType_COUNTER,
		"jarvisbot_tool_calls_total":      dto.MetricType_COUNTER,
		"jarvisbot_turn_duration_seconds": dto.MetricType_HISTOGRAM,
		"jarvisbot_gate_offered_tools":    dto.MetricType_HISTOGRAM,
		"jarvisbot_build_info":            dto.MetricType_GAUGE,
		"jarvisbot_approvals_pending":     dto.MetricType_GAUGE,
		"go_goroutines":                   dto.MetricType_GAUGE,
		"go_threads":                      dto.MetricType_GAUGE,
		"go_info":                         dto.MetricType_GAUGE,
		"go_memstats_alloc_bytes":         dto.MetricType_GAUGE,
		"go_memstats_alloc_bytes_total":   dto.MetricType_COUNTER,
		"go_memstats_heap_inuse_bytes":    dto.MetricType_GAUGE,
		"go_memstats_sys_bytes":           dto.MetricType_GAUGE,
		"go_memstats_mallocs_total":       dto.MetricType_COUNTER,
		"go_gc_duration_seconds":          dto.MetricType_SUMMARY,
	}
	if runtime.GOOS == "linux" {
		for _, n := range []string{"process_resident_memory_bytes", "process_virtual_memory_bytes",
			"process_open_fds", "process_max_fds", "process_start_time_seconds"} {
			want[n] = dto.MetricType_GAUGE
		}
		want["process_cpu_seconds_total"] = dto.MetricType_COUNTER
	}
	for name, typ := range want {
		f, ok := fams[name]
		switch {
		case !ok:
			t.Errorf("the scrape lacks %s", name)
		case f.GetType() != typ:
			t.Errorf("%s is a %v, want %v", name, f.GetType(), typ)
		case f.GetHelp() == "":
			t.Errorf("%s has no HELP", name)
		}
	}
	if v := find(t, fams, "go_info", map[string]string{"version": runtime.Version()}).GetGauge().GetValue(); v != 1 {
		t.Errorf("go_info = %v", v)
	}
	if n := find(t, fams, "go_goroutines", nil).GetGauge().GetValue(); n < 1 {
		t.Errorf("go_goroutines = %v", n)
	}
	if a, s := find(t, fams, "go_memstats_alloc_bytes", nil).GetGauge().GetValue(), find(t, fams, "go_memstats_sys_bytes", nil).GetGauge().GetValue(); a <= 0 || a > s {
		t.Errorf("go_memstats_alloc_bytes %v, go_memstats_sys_bytes %v: want 0 < alloc <= sys", a, s)
	}
	gc := find(t, fams, "go_gc_duration_seconds", nil).GetSummary()
	if q := gc.GetQuantile(); len(q) != 5 || q[0].GetQuantile() != 0 || q[2].GetQuantile() != 0.5 || q[4].GetQuantile() != 1 {
		t.Errorf("go_gc_duration_seconds quantiles: %v", q)
	}
	if runtime.GOOS == "linux" {
		if rss := find(t, fams, "process_resident_memory_bytes", nil).GetGauge().GetValue(); rss < 1<<20 {
			t.Errorf("process_resident_memory_bytes = %v, want at least a MiB", rss)
		}
		start := find(t, fams, "process_start_time_seconds", nil).GetGauge().GetValue()
		if now := float64(time.Now().Unix()); start > now+1 || start < now-24*3600 {
			t.Errorf("process_start_time_seconds = %v, now %v", start, now)
		}
	}
}

// TestLabelValuesEscaped: quotes, backslashes and line breaks in a label
// value (the version comes from the build) reach Prometheus intact.
func TestLabelValuesEscaped(t *testing.T) {
	for _, v := range []string{
		`v1 "quoted"`,
		`C:\path\`,
		"two\nlines",
		`all "of\them` + "\n" + `\"` + "\n",
		"ünïcode ✓",
		"",
	} {
		m, err := New(Options{Version: v})
		if err != nil {
			t.Fatal(err)
		}
		m.TurnDone("", v, time.Second)
		fams := parse(t, scrape(t, m))
		find(t, fams, "jarvisbot_build_info", map[string]string{"version": v, "goversion": runtime.Version()})
		find(t, fams, "jarvisbot_turns_total", map[string]string{"outcome": v})
	}
}

// TestHistogramBucketsCumulative: every bucket counts the observations at
// or below its bound, the +Inf bucket is the count, and the sum adds up.
func TestHistogramBucketsCumulative(t *testing.T) {
	m, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Bounds 0.25 0.5 1 2 5 10 20 30 60 120 300 600.
	for _, s := range []float64{0.1, 0.25, 0.3, 1, 1, 7, 599, 600, 601, 3600} {
		m.TurnDone("", "ok", time.Duration(s*float64(time.Second)))
	}
	body := scrape(t, m)
	for _, line := range []string{
		`jarvisbot_turn_duration_seconds_bucket{le="0.25"} 2`,
		`jarvisbot_turn_duration_seconds_bucket{le="1"} 5`,
		`jarvisbot_turn_duration_seconds_bucket{le="600"} 8`,
		`jarvisbot_turn_duration_seconds_bucket{le="+Inf"} 10`,
		`jarvisbot_turn_duration_seconds_count 10`,
	} {
		if !strings.Contains(body, line+"\n") {
			t.Errorf("the scrape lacks %q", line)
		}
	}
	h := find(t, parse(t, body), "jarvisbot_turn_duration_seconds", nil).GetHistogram()
	want := map[float64]uint64{0.25: 2, 0.5: 3, 1: 5, 2: 5, 5: 5, 10: 6, 20: 6, 30: 6, 60: 6, 120: 6, 300: 6, 600: 8, math.Inf(1): 10}
	prev := uint64(0)
	for _, b := range h.GetBucket() {
		if b.GetCumulativeCount() < prev {
			t.Errorf("bucket le=%v counts %d, below the bucket before it (%d)", b.GetUpperBound(), b.GetCumulativeCount(), prev)
		}
		prev = b.GetCumulativeCount()
		if w, ok := want[b.GetUpperBound()]; !ok || w != b.GetCumulativeCount() {
			t.Errorf("bucket le=%v counts %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), w)
		}
		delete(want, b.GetUpperBound())
	}
	if len(want) > 0 {
		t.Errorf("buckets missing: %v", want)
	}
	if h.GetSampleCount() != 10 || math.Abs(h.GetSampleSum()-(0.1+0.25+0.3+1+1+7+599+600+601+3600)) > 1e-6 {
		t.Errorf("count %d sum %v", h.GetSampleCount(), h.GetSampleSum())
	}
}

// TestMetricsConcurrent: counts from many goroutines while scrapes run
// all arrive (run with -race), and every scrape parses.
func TestMetricsConcurrent(t *testing.T) {
	m, err := New(Options{QueueDepth: func(context.Context) (int, error) { return 1, nil }})
	if err != nil {
		t.Fatal(err)
	}
	const workers, each = 8, 200
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range each {
				m.TurnDone("", "ok", time.Duration(i)*time.Millisecond)
				m.ToolCalled("", "safe", "ok")
				m.Offered(i % 10)
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for range 5 {
				rec := httptest.NewRecorder()
				m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
				if rec.Code == http.StatusOK {
					p := expfmt.NewTextParser(model.LegacyValidation)
					if _, err := p.TextToMetricFamilies(rec.Body); err != nil {
						t.Errorf("a scrape during counting does not parse: %v", err)
					}
				}
			}
		})
	}
	wg.Wait()
	fams := parse(t, scrape(t, m))
	const n = workers * each
	if got := find(t, fams, "jarvisbot_turns_total", map[string]string{"outcome": "ok"}).GetCounter().GetValue(); got != n {
		t.Errorf("turns: %v, want %d", got, n)
	}
	if got := find(t, fams, "jarvisbot_tool_calls_total", map[string]string{"tier": "safe", "outcome": "ok"}).GetCounter().GetValue(); got != n {
		t.Errorf("tool calls: %v, want %d", got, n)
	}
	if got := find(t, fams, "jarvisbot_gate_offered_tools", nil).GetHistogram().GetSampleCount(); got != n {
		t.Errorf("offered: %v observations, want %d", got, n)
	}
}

// TestThirdScrapeRefused: two scrapes run at once; a third is told to come
// back (503 with Retry-After) rather than queueing more store reads, and
// is served once one finishes.
func TestThirdScrapeRefused(t *testing.T) {
	inside := make(chan struct{})
	release := make(chan struct{})
	var hold sync.Mutex
	holding := true
	m, err := New(Options{ApprovalsPending: func(context.Context) (int, error) {
		hold.Lock()
		h := holding
		hold.Unlock()
		if h {
			inside <- struct{}{}
			<-release
		}
		return 1, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	h := m.Handler()
	codes := make(chan int, 2)
	for range 2 {
		go func() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
			codes <- rec.Code
		}()
	}
	<-inside
	<-inside
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Errorf("a third scrape at once: %d, Retry-After %q; want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
	hold.Lock()
	holding = false
	hold.Unlock()
	close(release)
	for range 2 {
		if c := <-codes; c != http.StatusOK {
			t.Errorf("a held scrape answered %d", c)
		}
	}
	scrape(t, m)
}

func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("scrape: %d", rec.Code)
	}
	b, _ := io.ReadAll(rec.Body)
	return string(b)
}

// parse reads a scrape with Prometheus' own text parser, with the strict
// (legacy) name rules every Prometheus version accepts.
func parse(t *testing.T, body string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("Prometheus' parser rejects the scrape: %v\n%s", err, body)
	}
	return fams
}

// find is the series of family name with exactly labels.
func find(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels map[string]string) *dto.Metric {
	t.Helper()
	f, ok := fams[name]
	if !ok {
		t.Fatalf("the scrape lacks %s", name)
	}
series:
	for _, m := range f.GetMetric() {
		if len(m.GetLabel()) != len(labels) {
			continue
		}
		for _, l := range m.GetLabel() {
			if v, ok := labels[l.GetName()]; !ok || v != l.GetValue() {
				continue series
			}
		}
		return m
	}
	t.Fatalf("%s has no series %q: %v", name, labels, f.GetMetric())
	return nil
}

// TestMetricsCountModelTokensAndCost: each model call adds its tokens by
// kind and its cost to its model's counters; a failed call is counted as
// one, and a model with no price adds no cost series.
func TestMetricsCountModelTokensAndCost(t *testing.T) {
	m, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	m.ModelCalled(ModelCall{Provider: "anthropic", Model: "claude-sonnet-4-5", OK: true, InputTokens: 100, OutputTokens: 20, CacheReadTokens: 1000, CacheWriteTokens: 50, Cost: 0.0015})
	m.ModelCalled(ModelCall{Provider: "anthropic", Model: "claude-sonnet-4-5", OK: true, InputTokens: 200, Cost: 0.0006})
	m.ModelCalled(ModelCall{Provider: "openai", Model: "local", OK: true, InputTokens: 7})
	m.ModelCalled(ModelCall{Provider: "openai", Model: "local", OK: false})
	fams := parse(t, scrape(t, m))
	sonnet := "anthropic/claude-sonnet-4-5"
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"jarvisbot_model_calls_total", map[string]string{"model": sonnet, "outcome": "ok"}, 2},
		{"jarvisbot_model_calls_total", map[string]string{"model": "openai/local", "outcome": "error"}, 1},
		{"jarvisbot_model_tokens_total", map[string]string{"model": sonnet, "kind": "input"}, 300},
		{"jarvisbot_model_tokens_total", map[string]string{"model": sonnet, "kind": "output"}, 20},
		{"jarvisbot_model_tokens_total", map[string]string{"model": sonnet, "kind": "cache_read"}, 1000},
		{"jarvisbot_model_tokens_total", map[string]string{"model": sonnet, "kind": "cache_write"}, 50},
		{"jarvisbot_model_tokens_total", map[string]string{"model": "openai/local", "kind": "input"}, 7},
		{"jarvisbot_model_cost_usd_total", map[string]string{"model": sonnet}, 0.0021},
	} {
		if got := find(t, fams, c.name, c.labels).GetCounter().GetValue(); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if n := len(fams["jarvisbot_model_cost_usd_total"].GetMetric()); n != 1 {
		t.Errorf("%d cost series, want 1: a model with no price has none", n)
	}
}
