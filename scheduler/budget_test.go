package scheduler

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestOverBudgetRunIsRecordedA5: a run a budget stopped is recorded as
// "over budget" with the reason, delivers nothing, and never counts
// toward the failure alert (the owner has the budget's buttons already).
func TestOverBudgetRunIsRecordedA5(t *testing.T) {
	h := newHarness(t, nil, time.Date(2026, 12, 2, 8, 0, 30, 0, time.UTC))
	h.runErr = fmt.Errorf("%w: the daily budget of agent default is reached", ErrOverBudget)
	ctx := context.Background()
	h.start(t, Entry{Skill: "digest", Spec: "@hourly", Chat: "discord:9"})
	defer h.s.Stop(context.Background())
	for range DefaultAlertAfter + 1 {
		h.clk.Advance(time.Hour)
		h.s.Wait()
	}
	runs, err := h.db.Runs(ctx, "digest", 10)
	if err != nil || len(runs) != DefaultAlertAfter+1 {
		t.Fatalf("%d runs recorded, want %d: %v", len(runs), DefaultAlertAfter+1, err)
	}
	for _, r := range runs {
		if r.Outcome != OutcomeOverBudget || !strings.Contains(r.Error, "daily budget of agent default") || r.Delivery != "none" || r.Report != "" {
			t.Errorf("recorded %+v, want over budget with the reason, nothing to deliver", r)
		}
		if err := RunError(r); err == nil || !strings.Contains(err.Error(), "did not run: over budget") {
			t.Errorf("RunError: %v", err)
		}
	}
	h.mu.Lock()
	sent := append([]string(nil), h.sent...)
	h.mu.Unlock()
	if len(sent) != 0 {
		t.Errorf("sent %q, want nothing: no report, no failure alert", sent)
	}
	if st, _ := h.db.ScheduleState(ctx, "digest"); st.Failures != 0 || st.Alerted {
		t.Errorf("state %+v: over budget counted as a failure", st)
	}
}
