package metrics

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestMetricsCountTurnsAndCalls: what the runtime reports is what a
// scrape shows, labelled by outcome and tier.
func TestMetricsCountTurnsAndCalls(t *testing.T) {
	m, err := New(Options{Version: "v1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	m.TurnDone("ok", 1500*time.Millisecond)
	m.TurnDone("ok", 200*time.Millisecond)
	m.TurnDone("error", time.Second)
	m.ToolCalled("safe", "ok")
	m.ToolCalled("ask", "denied")
	m.ToolCalled("", "refused")
	m.Offered(7)

	for _, c := range []struct {
		name string
		got  float64
		want float64
	}{
		{"turns ok", testutil.ToFloat64(m.turns.WithLabelValues("ok")), 2},
		{"turns error", testutil.ToFloat64(m.turns.WithLabelValues("error")), 1},
		{"safe ok", testutil.ToFloat64(m.toolCalls.WithLabelValues("safe", "ok")), 1},
		{"ask denied", testutil.ToFloat64(m.toolCalls.WithLabelValues("ask", "denied")), 1},
		{"refused before a tier", testutil.ToFloat64(m.toolCalls.WithLabelValues("none", "refused")), 1},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
	body := scrape(t, m)
	for _, want := range []string{
		"jarvisbot_turn_duration_seconds_count 3",
		"jarvisbot_gate_offered_tools_count 1",
		"jarvisbot_gate_offered_tools_sum 7",
		`jarvisbot_build_info{goversion="go`,
		`version="v1.2.3"} 1`,
		"go_goroutines",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the scrape lacks %q:\n%s", want, body)
		}
	}
}

// TestMetricsGaugesReadOnScrape: the gauges are read when scraped; one
// that cannot be read is left out, not shown as zero, and the rest are
// served.
func TestMetricsGaugesReadOnScrape(t *testing.T) {
	pending := 0
	m, err := New(Options{
		ApprovalsPending: func(context.Context) (int, error) { return pending, nil },
		DeliveriesKept:   func(context.Context) (int, error) { return 3, nil },
		QueueDepth:       func(context.Context) (int, error) { return 0, errors.New("the store is down") },
	})
	if err != nil {
		t.Fatal(err)
	}
	pending = 2
	body := scrape(t, m)
	for _, want := range []string{"jarvisbot_approvals_pending 2", "jarvisbot_deliveries_kept 3"} {
		if !strings.Contains(body, want) {
			t.Errorf("the scrape lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "jarvisbot_queue_depth ") {
		t.Errorf("a gauge that failed to read is shown:\n%s", body)
	}
	if strings.Contains(body, "jarvisbot_inbox_waiting") {
		t.Errorf("a gauge with no reader is shown:\n%s", body)
	}
}

// TestMetricsOwnRegistry: two Metrics count apart (no global registry).
func TestMetricsOwnRegistry(t *testing.T) {
	a, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	a.TurnDone("ok", time.Second)
	if got := testutil.ToFloat64(b.turns.WithLabelValues("ok")); got != 0 {
		t.Errorf("b counted a's turn: %v", got)
	}
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
