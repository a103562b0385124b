package app

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/usage"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/scheduler"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestOverviewOfANewInstallationW2: with nothing recorded the Overview
// still covers thirty days, ending today on the owner's clock, all zero;
// no model is set, and it says why.
func TestOverviewOfANewInstallationW2(t *testing.T) {
	in := testInstallation(t, map[string]string{"JARVIS_TIMEZONE": "Europe/Berlin"})
	ov, err := in.Overview(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	days := ov.Usage.Days
	if len(days) != OverviewDays || days[len(days)-1].Day != in.Env.Now().In(in.Config.Location()).Format(time.DateOnly) {
		t.Fatalf("the window: %d days, the last %q", len(days), days[len(days)-1].Day)
	}
	if ov.Usage.Total.Calls != 0 || len(ov.Usage.Agents) != 0 || ov.Turns.Total != 0 || ov.ToolCalls.Total != 0 || len(ov.Turns.Keys) != 0 {
		t.Errorf("a new installation counts something: %+v %+v %+v", ov.Usage.Total, ov.Turns, ov.ToolCalls)
	}
	if len(ov.Models) != 0 || ov.ModelErr == "" {
		t.Errorf("no model is set, yet: %+v, %q", ov.Models, ov.ModelErr)
	}
	if ov.Zone != "Europe/Berlin" || len(ov.Problems) != 0 {
		t.Errorf("zone %q, problems %q", ov.Zone, ov.Problems)
	}
}

// TestOverviewFiguresAreTheUsageReportsW2: the per-day, per-agent series
// adds up to what Installation.Usage (the CLI's use case) reports by day
// and by agent; a call before the window is left out; a day is the owner's.
func TestOverviewFiguresAreTheUsageReportsW2(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, map[string]string{"JARVIS_TIMEZONE": "Europe/Berlin",
		"JARVIS_PROVIDER": "openai", "JARVIS_MODEL": "gpt-4.1", "OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "https://user:pw@llm.example.org/v1?key=x"})
	loc := in.Config.Location()
	today := usage.DayStart(in.Env.Now(), loc)
	calls := []store.ModelCall{
		{At: today.AddDate(0, 0, -OverviewDays), Agent: "default", Provider: "openai", Model: "gpt-4.1", InputTokens: 999, Outcome: "ok"}, // before the window
		{At: today.AddDate(0, 0, -29).Add(time.Minute), Agent: "default", Provider: "openai", Model: "gpt-4.1", InputTokens: 1000, OutputTokens: 10, Outcome: "ok", ToolTokens: 100, CatalogTokens: 1000},
		{At: today.Add(-time.Minute), Agent: "inbox", Provider: "anthropic", Model: "claude-sonnet-4-5", InputTokens: 2000, Outcome: "ok", ToolTokens: 50, CatalogTokens: 1000},
		{At: today.Add(time.Minute), Agent: "inbox", Provider: "anthropic", Model: "claude-sonnet-4-5", InputTokens: 3000, OutputTokens: 30, Outcome: "ok"},
		{At: today.Add(2 * time.Minute), Agent: "default", Provider: "local", Model: "llama3.1-unpriced", InputTokens: 7, Outcome: "error: overloaded"},
	}
	for _, c := range calls {
		if err := in.DB.RecordModelCall(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	ov, err := in.Overview(ctx)
	if err != nil {
		t.Fatal(err)
	}
	since := ov.Usage.Since
	byDay, err := in.Usage(ctx, since, usage.ByDay)
	if err != nil {
		t.Fatal(err)
	}
	byAgent, err := in.Usage(ctx, since, usage.ByAgent)
	if err != nil {
		t.Fatal(err)
	}
	if ov.Usage.Total != byAgent.Total || ov.Usage.Total.Calls != 4 {
		t.Errorf("the total %+v, the report's %+v", ov.Usage.Total, byAgent.Total)
	}
	days := map[string]usage.Totals{}
	agentSums := map[string]usage.Totals{}
	for _, d := range ov.Usage.Days {
		var sum usage.Totals
		for agent, tt := range d.ByAgent {
			sum.Calls += tt.Calls
			sum.InputTokens += tt.InputTokens
			sum.Cost += tt.Cost
			a := agentSums[agent]
			a.Calls += tt.Calls
			a.InputTokens += tt.InputTokens
			agentSums[agent] = a
		}
		if sum.Calls != d.Total.Calls || sum.InputTokens != d.Total.InputTokens || !near(sum.Cost, d.Total.Cost) {
			t.Errorf("%s: the agents add up to %+v, the day is %+v", d.Day, sum, d.Total)
		}
		if d.Total.Calls > 0 {
			days[d.Day] = d.Total
		}
	}
	if len(days) != len(byDay.Rows) {
		t.Errorf("days with calls: %v; the report by day: %+v", days, byDay.Rows)
	}
	for _, r := range byDay.Rows {
		if days[r.Key] != r.Totals {
			t.Errorf("%s: the series %+v, the report %+v", r.Key, days[r.Key], r.Totals)
		}
	}
	for _, r := range byAgent.Rows {
		if a := agentSums[r.Key]; a.Calls != r.Calls || a.InputTokens != r.InputTokens {
			t.Errorf("%s: the series %+v, the report %+v", r.Key, a, r.Totals)
		}
	}
	if first := ov.Usage.Days[0]; first.Total.InputTokens != 1000 {
		t.Errorf("the window's first day %s: %+v, want the call 29 days ago alone", first.Day, first.Total)
	}
	if want := (ModelLink{Provider: "openai", Model: "gpt-4.1", Endpoint: "https://llm.example.org", Serving: true}); len(ov.Models) != 1 || ov.Models[0] != want || ov.ModelErr != "" {
		t.Errorf("models %+v (%q), want %+v", ov.Models, ov.ModelErr, want)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// TestTallyObserverCountsPerOwnersDayW2: the runtime's outcomes and tiers,
// heard through the observer, come back as the Overview's per-day counts,
// on the day of the owner's clock; a call refused before a tier counts as
// none, and an outcome no one expected still shows, after the usual ones.
func TestTallyObserverCountsPerOwnersDayW2(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	var o agents.Observer = observers{in.Env.tally(in.DB, in.Config.Location(), slog.New(slog.DiscardHandler))}
	for _, out := range []string{agents.TurnOK, agents.TurnOK, agents.TurnError, agents.TurnAwaiting, "surprise"} {
		o.TurnDone("research", out, time.Second)
	}
	for _, tier := range []string{"safe", "safe", "ask", ""} {
		o.ToolCalled("research", tier, agents.CallOK)
	}
	rows, err := in.DB.TalliesSince(ctx, "2000-01-01")
	if err != nil || len(rows) == 0 {
		t.Fatalf("tallies %+v, %v", rows, err)
	}
	for _, r := range rows {
		if r.Agent != "research" {
			t.Errorf("a tally of %s/%s was kept for agent %q, want research", r.Kind, r.Key, r.Agent)
		}
	}
	o.Offered(12)
	ov, err := in.Overview(ctx)
	if err != nil {
		t.Fatal(err)
	}
	last := len(ov.Usage.Days) - 1
	turns, calls := ov.Turns, ov.ToolCalls
	if turns.Total != 5 || turns.Days[last][agents.TurnOK] != 2 || turns.Totals[agents.TurnError] != 1 {
		t.Errorf("turns: %+v", turns)
	}
	if want := []string{agents.TurnOK, agents.TurnError, agents.TurnAwaiting, "surprise"}; !slices.Equal(turns.Keys, want) {
		t.Errorf("turn keys %q, want %q", turns.Keys, want)
	}
	if calls.Total != 4 || calls.Days[last]["safe"] != 2 || calls.Totals[store.TallyNoTier] != 1 {
		t.Errorf("tool calls: %+v", calls)
	}
	if want := []string{"safe", "ask", store.TallyNoTier}; !slices.Equal(calls.Keys, want) {
		t.Errorf("tier keys %q, want %q", calls.Keys, want)
	}
}

// TestNextRunsSoonestFirstW2: paused and unreadable skills are left out,
// the rest soonest first, at most MaxNextRuns.
func TestNextRunsSoonestFirstW2(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 7, 0, 0, 0, time.UTC)
	var sch Schedule
	for i, name := range []string{"g", "f", "e", "d", "c", "b", "a"} {
		sch.Entries = append(sch.Entries, scheduler.Status{Entry: scheduler.Entry{Skill: name}, Next: t0.Add(time.Duration(7-i) * time.Hour)})
	}
	sch.Entries = append(sch.Entries,
		scheduler.Status{Entry: scheduler.Entry{Skill: "paused"}, Next: t0, Paused: true},
		scheduler.Status{Entry: scheduler.Entry{Skill: "broken"}, Next: t0, Err: context.Canceled})
	got := nextRuns(sch, time.UTC)
	var names []string
	for _, r := range got {
		names = append(names, r.Skill)
	}
	if want := []string{"a", "b", "c", "d", "e"}; !slices.Equal(names, want) {
		t.Errorf("next runs %q, want %q", names, want)
	}
}

// readyChannel is a channel that tells when it hears the owner.
type readyChannel struct {
	channels.Channel // only Name is called
	name             string
	ready            chan struct{}
}

func (c readyChannel) Name() string           { return c.name }
func (c readyChannel) Ready() <-chan struct{} { return c.ready }

// plainChannel is a channel that cannot tell (the console).
type plainChannel struct{ channels.Channel }

func (plainChannel) Name() string { return "console" }

// TestChannelStatesW2: a channel that can tell is connected once ready;
// one that cannot counts as connected while the session runs.
func TestChannelStatesW2(t *testing.T) {
	up := make(chan struct{})
	close(up)
	got := channelStates([]channels.Channel{readyChannel{name: "telegram", ready: up}, readyChannel{name: "discord", ready: make(chan struct{})}, plainChannel{}})
	want := []ChannelState{{Name: "telegram", Connected: true}, {Name: "discord"}, {Name: "console", Connected: true}}
	if !slices.Equal(got, want) {
		t.Errorf("channel states %+v, want %+v", got, want)
	}
}

// heard records what an observer heard.
type heard struct{ calls *[]string }

func (h heard) TurnDone(agent, outcome string, _ time.Duration) {
	*h.calls = append(*h.calls, "turn "+agent+" "+outcome)
}
func (h heard) ToolCalled(agent, tier, outcome string) {
	*h.calls = append(*h.calls, "call "+agent+" "+tier+" "+outcome)
}
func (h heard) Offered(n int) { *h.calls = append(*h.calls, fmt.Sprint("offered ", n)) }

// TestObserversHearInTurnW2: the metrics join the daily tally as the
// runtime's observer; each hears every event, in the order they joined.
func TestObserversHearInTurnW2(t *testing.T) {
	var got []string
	s := &Service{runtime: &agents.Runtime{}}
	s.observe(heard{&got})
	s.observe(heard{&got})
	o := s.runtime.Observer
	o.TurnDone("inbox", agents.TurnOK, time.Second)
	o.ToolCalled("inbox", "ask", agents.CallDenied)
	o.Offered(3)
	want := []string{"turn inbox ok", "turn inbox ok", "call inbox ask denied", "call inbox ask denied", "offered 3", "offered 3"}
	if !slices.Equal(got, want) {
		t.Errorf("heard %q, want %q", got, want)
	}
}

// TestOverviewNamesTheChainAndWhoAnswersW2A3: the Overview lists a
// provider chain, primary first; once the primary is busy and a fallback
// took over, the fallback is the one answering, with why and since when.
func TestOverviewNamesTheChainAndWhoAnswersW2A3(t *testing.T) {
	ctx := context.Background()
	in, primary, fallback := chainInstallation(t, 300*time.Millisecond)
	svc, err := in.Env.BuildService(ctx, in.Config, slog.New(slog.DiscardHandler), func(store.Approval) {}, func(store.Approval) {})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	svc.notice = func(context.Context, string) {}
	live := svc.Installation()
	ov, err := live.Overview(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ov.Models) != 2 || ov.Models[0].Model != "claude-x" || !ov.Models[0].Serving || !ov.Models[1].Fallback || ov.Models[1].Model != "gpt-x" || ov.Models[1].Serving {
		t.Fatalf("before any turn: %+v", ov.Models)
	}
	primary.Push(fakellm.Step{Status: 529}, fakellm.Step{Status: 529})
	fallback.Push(fakellm.Step{Text: "from the fallback"})
	if _, err := svc.runtime.Turn(ctx, agents.Input{Agent: store.DefaultAgent, Chat: "console", Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	if ov, err = live.Overview(ctx); err != nil {
		t.Fatal(err)
	}
	if m := ov.Models; m[0].Serving || !m[1].Serving || m[1].Reason == "" || m[1].Since.IsZero() {
		t.Errorf("after the primary's 529s: %+v", m)
	}
}
