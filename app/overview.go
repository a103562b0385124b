package app

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"time"

	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/usage"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/store"
)

// The Overview (W2) is the dashboard's first page: what runs and what
// waits, and thirty days of model calls, what they cost and what the
// gate saved. Its usage figures are Installation.Usage's, the use case
// `jarvisbot usage` and `/usage` show; the turns by outcome and tool
// calls by tier come from the daily tally the runtime's observer keeps
// (tallyObserver below).

// OverviewDays is how many days the Overview's charts cover, today
// included.
const OverviewDays = 30

// Overview is the installation at a glance.
type Overview struct {
	// Now is when it was read, in the owner's time zone; Zone names it.
	Now  time.Time
	Zone string
	// Channels are the running session's; none in a one-off command.
	Channels []ChannelState
	// Models is the chain of providers turns go to, primary first;
	// ModelErr says why there is none.
	Models   []ModelLink
	ModelErr string
	Pause    PauseState
	// Approvals is how many requests wait for the owner's decision.
	Approvals int
	// Attention are the display names of the plugins whose sign-in needs
	// renewing (their tools are off meanwhile).
	Attention []string
	// NextRuns are the scheduled skills that run next, soonest first, at
	// most MaxNextRuns; Scheduled is how many skills are scheduled in all.
	NextRuns  []NextRun
	Scheduled int
	// Summary is today and this month, as `/usage` says them.
	Summary UsageSummary
	Usage   UsageSeries
	// Turns are the turns by outcome, ToolCalls the tool calls by tier,
	// per day of the window.
	Turns     DailyCounts
	ToolCalls DailyCounts
	// Problems say which parts could not be read; the rest still shows.
	Problems []string
}

// ChannelState is one chat channel of the running session.
type ChannelState struct {
	Name string
	// Connected: it hears the owner (Telegram's long poll or webhook is
	// up, Discord's gateway session is ready). A channel that cannot tell
	// (the console) counts as connected while the session runs.
	Connected bool
}

// ModelLink is one provider of the chain turns go to.
type ModelLink struct {
	Fallback bool   // false for the primary
	Provider string // anthropic, openai, or a coding CLI (claude-code, codex)
	Model    string
	// Endpoint is an OpenAI-compatible endpoint's scheme and host; "" for
	// the provider's own.
	Endpoint string
	// Serving: this link answers the turns now. While a fallback serves,
	// Reason says why the primary was left ("529 overloaded") and Since
	// when.
	Serving bool
	Reason  string
	Since   time.Time
}

// NextRun is a scheduled skill's next run.
type NextRun struct {
	Skill string
	At    time.Time // in the owner's time zone
}

// MaxNextRuns bounds Overview.NextRuns.
const MaxNextRuns = 5

// UsageSeries is the window's model calls: by agent (the figures
// `jarvisbot usage --by agent` gives for the same days) and per day by
// agent, for the charts.
type UsageSeries struct {
	Since time.Time
	// Agents are the window's totals by agent, most costly first; Total
	// is their sum.
	Agents []usage.Row
	Total  usage.Totals
	// Days are every day of the window, oldest first, days without calls
	// included.
	Days []DayUsage
}

// DayUsage is one day's calls, in all and by agent.
type DayUsage struct {
	Day     string // "2006-01-02", in the owner's time zone
	Total   usage.Totals
	ByAgent map[string]usage.Totals
}

// DailyCounts is one tally over the window.
type DailyCounts struct {
	// Keys are the outcomes or tiers counted: the usual ones in their
	// usual order, then any other by name.
	Keys []string
	// Days are the counts per day, aligned with UsageSeries.Days.
	Days   []map[string]int
	Totals map[string]int
	Total  int
}

// Overview reads the installation at a glance. Only the usage record
// failing fails it; a part that cannot be read is left out and named in
// Problems.
func (in *Installation) Overview(ctx context.Context) (Overview, error) {
	loc := in.Config.Location()
	now := in.Env.Now().In(loc)
	ov := Overview{Now: now, Zone: loc.String()}
	if loc == time.Local {
		ov.Zone, _ = now.Zone()
	}
	problem := func(what string, err error) {
		ov.Problems = append(ov.Problems, fmt.Sprintf("%s: %v", what, err))
	}
	since := usage.DayStart(now, loc).AddDate(0, 0, -(OverviewDays - 1))
	var err error
	if ov.Usage, err = in.usageSeries(ctx, since); err != nil {
		return Overview{}, err
	}
	if ov.Summary, err = in.UsageSummary(ctx); err != nil {
		return Overview{}, err
	}
	if ov.Turns, ov.ToolCalls, err = in.tallies(ctx, ov.Usage.Days); err != nil {
		problem("the turns and tool calls", err)
	}
	ov.Models, err = in.modelChain(ctx)
	if err != nil {
		ov.ModelErr = err.Error()
	}
	if ov.Pause, err = in.Pause(ctx); err != nil {
		problem("whether jarvisbot is paused", err)
	}
	if pending, err := in.PendingApprovals(ctx); err != nil {
		problem("the approvals", err)
	} else {
		ov.Approvals = len(pending)
	}
	if list, err := in.Plugins(ctx); err != nil {
		problem("the plugins", err)
	} else {
		for _, e := range list.Entries {
			if e.State == string(store.PluginNeedsAttention) {
				ov.Attention = append(ov.Attention, cmp.Or(e.DisplayName, e.Name))
			}
		}
	}
	if sch, err := in.Schedule(ctx); err != nil {
		problem("the schedule", err)
	} else {
		ov.NextRuns, ov.Scheduled = nextRuns(sch, loc), len(sch.Entries)
	}
	return ov, nil
}

// Overview is the installation at a glance with the session's channels.
func (s *Session) Overview(ctx context.Context) (Overview, error) {
	ov, err := s.Installation().Overview(ctx)
	if err != nil {
		return ov, err
	}
	ov.Channels = channelStates(s.Channels)
	return ov, nil
}

// channelStates says of each channel whether it hears the owner: one
// that can tell (channels.Readier) once it is ready, one that cannot
// while it runs.
func channelStates(chs []channels.Channel) []ChannelState {
	out := make([]ChannelState, 0, len(chs))
	for _, ch := range chs {
		st := ChannelState{Name: ch.Name(), Connected: true}
		if r, ok := ch.(channels.Readier); ok {
			st.Connected = channels.Closed(r.Ready())
		}
		out = append(out, st)
	}
	return out
}

// modelChain is the providers turns go to, primary first, as the
// default agent resolves them (its config entry over the installation's,
// then the environment), and which of them answers now: the running
// service's chain may have handed over to a fallback.
func (in *Installation) modelChain(ctx context.Context) ([]ModelLink, error) {
	ch, err := in.Env.ChooseModel(ctx, in.Config, store.DefaultAgent)
	if err != nil {
		return nil, err
	}
	primary := ModelLink{Provider: ch.Config.Provider, Model: ch.Config.Model, Endpoint: endpoint(ch.Config.BaseURL), Serving: true}
	if ch.CLI != "" {
		return []ModelLink{{Provider: ch.CLI, Serving: true}}, nil
	}
	links := []ModelLink{primary}
	for _, l := range ch.Fallbacks {
		links = append(links, ModelLink{Fallback: true, Provider: l.Config.Provider, Model: l.Config.Model, Endpoint: endpoint(l.Config.BaseURL)})
	}
	if in.Live == nil || len(links) == 1 {
		return links, nil
	}
	mc, err := in.Live.ModelChain(ctx, store.DefaultAgent)
	if err != nil || mc.Serving <= 0 || mc.Serving >= len(links) {
		return links, nil // the primary serves, or the chain has not run yet
	}
	links[0].Serving = false
	l := &links[mc.Serving]
	l.Serving, l.Reason, l.Since = true, mc.Reason, mc.Since.In(in.Config.Location())
	return links, nil
}

// endpoint is an address's scheme and host, nothing that could carry a
// credential (user info, a query).
func endpoint(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// nextRuns are the schedule's next runs, soonest first; paused skills
// and those whose state cannot be read are left out.
func nextRuns(sch Schedule, loc *time.Location) []NextRun {
	var out []NextRun
	for _, e := range sch.Entries {
		if e.Paused || e.Err != nil || e.Next.IsZero() {
			continue
		}
		out = append(out, NextRun{Skill: e.Entry.Skill, At: e.Next.In(loc)})
	}
	slices.SortFunc(out, func(a, b NextRun) int { return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.Skill, b.Skill)) })
	return out[:min(len(out), MaxNextRuns)]
}

// usageSeries is the calls since a day's start: by agent as
// Installation.Usage groups them, and per day by agent with the same
// grouping and prices.
func (in *Installation) usageSeries(ctx context.Context, since time.Time) (UsageSeries, error) {
	rep, err := in.Usage(ctx, since, usage.ByAgent)
	if err != nil {
		return UsageSeries{}, err
	}
	out := UsageSeries{Since: since, Agents: rep.Rows, Total: rep.Total}
	loc := in.Config.Location()
	calls, err := in.DB.ModelCallsSince(ctx, since)
	if err != nil {
		return UsageSeries{}, err
	}
	byDay := map[string][]store.ModelCall{}
	for _, c := range calls {
		d := c.At.In(loc).Format(time.DateOnly)
		byDay[d] = append(byDay[d], c)
	}
	prices := in.Prices()
	for _, day := range windowDays(since) {
		du := DayUsage{Day: day, ByAgent: map[string]usage.Totals{}}
		rows, total, err := usage.Group(byDay[day], usage.ByAgent, prices, loc)
		if err != nil {
			return UsageSeries{}, err
		}
		for _, r := range rows {
			du.ByAgent[r.Key] = r.Totals
		}
		du.Total = total
		out.Days = append(out.Days, du)
	}
	return out, nil
}

// windowDays are the days of the window that begins at since.
func windowDays(since time.Time) []string {
	days := make([]string, OverviewDays)
	for i := range days {
		days[i] = since.AddDate(0, 0, i).Format(time.DateOnly)
	}
	return days
}

// The keys each tally shows first, in this order.
var (
	turnOutcomes = []string{agents.TurnOK, agents.TurnError, agents.TurnAwaiting, agents.TurnStopped}
	toolTiers    = []string{string(catalog.TierSafe), string(catalog.TierMonitor), string(catalog.TierAsk), store.TallyNoTier}
)

// tallies are the window's turns by outcome and tool calls by tier.
func (in *Installation) tallies(ctx context.Context, days []DayUsage) (turns, calls DailyCounts, err error) {
	rows, err := in.DB.TalliesSince(ctx, days[0].Day)
	if err != nil {
		return DailyCounts{}, DailyCounts{}, err
	}
	return countsOf(rows, store.TallyTurn, turnOutcomes, days), countsOf(rows, store.TallyToolCall, toolTiers, days), nil
}

// countsOf sums one kind of tally per day and key, every agent's
// together.
func countsOf(rows []store.Tally, kind string, usual []string, days []DayUsage) DailyCounts {
	idx := make(map[string]int, len(days))
	out := DailyCounts{Days: make([]map[string]int, len(days)), Totals: map[string]int{}}
	for i, d := range days {
		idx[d.Day] = i
		out.Days[i] = map[string]int{}
	}
	for _, r := range rows {
		i, ok := idx[r.Day]
		if r.Kind != kind || !ok {
			continue
		}
		out.Days[i][r.Key] += r.Count
		out.Totals[r.Key] += r.Count
		out.Total += r.Count
	}
	var other []string
	for k := range out.Totals {
		if !slices.Contains(usual, k) {
			other = append(other, k)
		}
	}
	slices.Sort(other)
	for _, k := range usual {
		if out.Totals[k] > 0 {
			out.Keys = append(out.Keys, k)
		}
	}
	out.Keys = append(out.Keys, other...)
	return out
}

// tallyObserver counts each turn's outcome and each tool call's tier in
// the store's daily tally, on the day the owner's clock shows. It runs
// inside the turn: one upsert, bounded; a count that cannot be written is
// logged, and the turn goes on.
type tallyObserver struct {
	db  store.Tallies
	now func() time.Time
	loc *time.Location
	log *slog.Logger
}

var _ agents.Observer = tallyObserver{}

// tallyTimeout bounds one count's write.
const tallyTimeout = 5 * time.Second

// tally is the observer that keeps the daily tally of the service's
// runtime.
func (a *Env) tally(db store.Tallies, loc *time.Location, log *slog.Logger) agents.Observer {
	return tallyObserver{db: db, now: a.Now, loc: loc, log: log}
}

func (t tallyObserver) TurnDone(agent, outcome string, _ time.Duration) {
	t.add(agent, store.TallyTurn, outcome)
}

func (t tallyObserver) ToolCalled(agent, tier, _ string) {
	t.add(agent, store.TallyToolCall, cmp.Or(tier, store.TallyNoTier))
}

func (tallyObserver) Offered(int) {} // the usage record keeps what each call offered

func (t tallyObserver) add(agent, kind, key string) {
	ctx, cancel := context.WithTimeout(context.Background(), tallyTimeout)
	defer cancel()
	day := t.now().In(t.loc).Format(time.DateOnly)
	if err := t.db.AddTally(ctx, day, agent, kind, key, 1); err != nil {
		t.log.Warn("counting a turn or tool call for the overview", "kind", kind, "key", key, "err", err)
	}
}

// observers is several observers heard as one, in order: the daily tally
// and, when serve exposes them, the operator's metrics.
type observers []agents.Observer

func (o observers) TurnDone(agent, outcome string, took time.Duration) {
	for _, x := range o {
		x.TurnDone(agent, outcome, took)
	}
}

func (o observers) ToolCalled(agent, tier, outcome string) {
	for _, x := range o {
		x.ToolCalled(agent, tier, outcome)
	}
}

func (o observers) Offered(n int) {
	for _, x := range o {
		x.Offered(n)
	}
}

// observe adds o to what the runtime's observer tells.
func (s *Service) observe(o agents.Observer) {
	if s.runtime.Observer == nil {
		s.runtime.Observer = o
		return
	}
	s.runtime.Observer = observers{s.runtime.Observer, o}
}
