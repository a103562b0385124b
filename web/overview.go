package web

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot/agents/usage"
	"github.com/jarvisbot/jarvisbot/app"
)

// Overview is what the dashboard's first page reads (W2): the
// installation at a glance, from the same use case as `jarvisbot usage`;
// OverviewTab is the running session's.
type Overview interface {
	Overview(ctx context.Context) (app.Overview, error)
}

// overviewRoutes is the Overview, which the dashboard opens on.
var overviewRoutes = []tabRoute{
	{"GET /{$}", (*Server).overviewPage},
}

func (s *Server) overviewPage(w http.ResponseWriter, r *http.Request) {
	if s.o.Overview == nil {
		s.unavailable(w, r, "The overview")
		return
	}
	ov, err := s.o.Overview.Overview(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, "overview", "Overview", overviewContent(overviewOf(ov)))
}

// overviewView is the Overview as the page shows it: the figures, and
// the charts drawn from them.
type overviewView struct {
	app.Overview
	// Agents are the window's agents as the charts colour them: the
	// costliest each in its own colour, the rest as one.
	Agents []agentShare
	// Calls is whether any model call falls in the window; without one
	// the usage charts are a sentence instead.
	Calls                                  bool
	Tokens, Cost, Gate, Turns, ToolsByTier barChart
	// From and To are the window's first and last day, as the page says
	// them.
	From, To string
}

// agentShare is an agent's (or the rest's) colour and totals.
type agentShare struct {
	Name   string
	Fill   string
	Totals usage.Totals
	Others []string // for the rest: the agents it holds
}

// maxAgentColours is how many agents the charts tell apart; the rest
// share one colour as "other agents".
const maxAgentColours = 7

// otherAgents is the series of the agents past maxAgentColours.
const otherAgents = "other agents"

func overviewOf(ov app.Overview) overviewView {
	v := overviewView{Overview: ov, Calls: ov.Usage.Total.Calls > 0}
	days := ov.Usage.Days
	labels := make([]string, len(days))
	for i, d := range days {
		labels[i] = dayLabel(d.Day)
	}
	if len(labels) > 0 {
		v.From, v.To = labels[0], labels[len(labels)-1]
	}
	v.Agents = agentShares(ov.Usage.Agents)

	// Tokens and cost per day, by agent.
	tokens := make([]series, len(v.Agents))
	cost := make([]series, len(v.Agents))
	for i, a := range v.Agents {
		tokens[i] = series{Name: a.Name, Fill: a.Fill, Values: make([]float64, len(days))}
		cost[i] = series{Name: a.Name, Fill: a.Fill, Values: make([]float64, len(days))}
		for j, d := range days {
			for _, name := range append([]string{a.Name}, a.Others...) {
				t := d.ByAgent[name]
				tokens[i].Values[j] += float64(t.Tokens())
				cost[i].Values[j] += t.Cost
			}
		}
	}
	span := fmt.Sprintf("one bar a day from %s to %s, split by agent", v.From, v.To)
	v.Tokens = stackedBars("chart-tokens", "Tokens per day by agent",
		fmt.Sprintf("Stacked bars, %s. %s tokens in all%s.", span, count(ov.Usage.Total.Tokens()), busiest(labels, tokens, func(f float64) string { return count(f) + " tokens" })),
		labels, tokens, tokensShort)
	v.Cost = stackedBars("chart-cost", "Cost per day by agent (US dollars)",
		fmt.Sprintf("Stacked bars, %s. %s in all%s.", span, dollars(ov.Usage.Total.Cost), busiest(labels, cost, dollars)),
		labels, cost, dollars)

	// What the gate sent of the tools' schemas against what offering all
	// would have cost, per model call.
	sent := series{Name: "schema tokens sent", Fill: "#2457c5", Values: make([]float64, len(days))}
	saved := series{Name: "saved by the gate", Fill: "#9ccfae", Values: make([]float64, len(days))}
	for i, d := range days {
		if n := float64(d.Total.Calls); n > 0 {
			sent.Values[i] = float64(d.Total.ToolTokens) / n
			saved.Values[i] = float64(max(0, d.Total.CatalogTokens-d.Total.ToolTokens)) / n
		}
	}
	v.Gate = stackedBars("chart-gate", "Tool schemas per model call: sent, and saved by the gate",
		fmt.Sprintf("Stacked bars, one a day from %s to %s: the average tokens of the tool schemas a call sent, and above them what offering every tool the agent may use would have added. The gate saved %s over the period.",
			v.From, v.To, percent(ov.Usage.Total.Saved())),
		labels, []series{sent, saved}, tokensShort)

	v.Turns = dailyCountsChart("chart-turns", "Turns per day by outcome",
		fmt.Sprintf("Stacked bars, one a day from %s to %s, split by how each turn ended. %s turns in all.", v.From, v.To, count(ov.Turns.Total)),
		labels, ov.Turns, outcomeNames)
	v.ToolsByTier = dailyCountsChart("chart-tiers", "Tool calls per day by tier",
		fmt.Sprintf("Stacked bars, one a day from %s to %s, split by the tier each call ran under. %s tool calls in all.", v.From, v.To, count(ov.ToolCalls.Total)),
		labels, ov.ToolCalls, tierNames)
	return v
}

// agentShares are the agents the charts tell apart, costliest first as
// the usage report orders them, and the rest as one.
func agentShares(rows []usage.Row) []agentShare {
	own := len(rows)
	if own > maxAgentColours+1 { // one more than the colours would share one alone
		own = maxAgentColours
	}
	out := make([]agentShare, 0, own+1)
	for i, r := range rows[:own] {
		out = append(out, agentShare{Name: r.Key, Fill: palette[i%len(palette)], Totals: r.Totals})
	}
	if own < len(rows) {
		rest := agentShare{Name: otherAgents, Fill: palette[len(palette)-1]}
		for _, r := range rows[own:] {
			rest.Others = append(rest.Others, r.Key)
			addTotals(&rest.Totals, r.Totals)
		}
		out = append(out, rest)
	}
	return out
}

// addTotals adds b's figures to a's.
func addTotals(a *usage.Totals, b usage.Totals) {
	a.Calls += b.Calls
	a.Errors += b.Errors
	a.InputTokens += b.InputTokens
	a.OutputTokens += b.OutputTokens
	a.CacheReadTokens += b.CacheReadTokens
	a.CacheWriteTokens += b.CacheWriteTokens
	a.Cost += b.Cost
	a.Unpriced += b.Unpriced
	a.ToolsSent += b.ToolsSent
	a.ToolTokens += b.ToolTokens
	a.CatalogTokens += b.CatalogTokens
}

// A tally's keys as the page names them, and their colours: green for
// what went well, amber for what waits or is watched, red for what
// failed or asks.
type keyName struct{ Name, Fill string }

var (
	outcomeNames = map[string]keyName{
		"ok": {"answered", "#17804a"}, "error": {"failed", "#b91c1c"},
		"awaiting_approval": {"waiting for approval", "#e08a00"}, "stopped": {"stopped", "#8c8c8c"},
	}
	tierNames = map[string]keyName{
		"safe": {"safe", "#17804a"}, "monitor": {"monitor", "#e08a00"},
		"ask": {"ask", "#b91c1c"}, "none": {"refused before a tier", "#8c8c8c"},
	}
)

// nameOf is a tally key's name and colour; an unknown key shows as it is
// in a colour of the palette.
func nameOf(names map[string]keyName, key string, i int) keyName {
	if n, ok := names[key]; ok {
		return n
	}
	return keyName{key, palette[i%len(palette)]}
}

// dailyCountsChart draws a tally per day, one series per key.
func dailyCountsChart(id, title, desc string, labels []string, c app.DailyCounts, names map[string]keyName) barChart {
	ss := make([]series, len(c.Keys))
	for i, k := range c.Keys {
		n := nameOf(names, k, i)
		ss[i] = series{Name: n.Name, Fill: n.Fill, Values: make([]float64, len(labels))}
		for j := range labels {
			if j < len(c.Days) {
				ss[i].Values[j] = float64(c.Days[j][k])
			}
		}
	}
	return stackedBars(id, title, desc, labels, ss, func(f float64) string { return trimZero(fmt.Sprintf("%.1f", f)) })
}

// countRow is one line of a tally's figures.
type countRow struct {
	Key, Name, Fill string
	Count           int
}

// countRows are a tally's totals, in its keys' order.
func countRows(c app.DailyCounts, names map[string]keyName) []countRow {
	rows := make([]countRow, len(c.Keys))
	for i, k := range c.Keys {
		n := nameOf(names, k, i)
		rows[i] = countRow{Key: k, Name: n.Name, Fill: n.Fill, Count: c.Totals[k]}
	}
	return rows
}

// busiest says which day of the series' sums was highest, as ", the
// most on DAY: FIGURE"; "" when every day is zero.
func busiest(labels []string, ss []series, format func(float64) string) string {
	best, at := 0.0, -1
	for i := range labels {
		sum := 0.0
		for _, s := range ss {
			sum += valueAt(s.Values, i)
		}
		if sum > best {
			best, at = sum, i
		}
	}
	if at < 0 {
		return ""
	}
	return fmt.Sprintf(", the most on %s: %s", labels[at], format(best))
}

// dayLabel is a day of the window as the charts label it: "Dec 6".
func dayLabel(day string) string {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return day
	}
	return t.Format("Jan 2")
}

// daysWithCalls are the window's days that had calls, latest first.
func (v overviewView) daysWithCalls() []app.DayUsage {
	var out []app.DayUsage
	for _, d := range slices.Backward(v.Usage.Days) {
		if d.Total.Calls > 0 {
			out = append(out, d)
		}
	}
	return out
}

// modelText names a link of the model chain: "anthropic claude-sonnet-4-5
// at https://…".
func modelText(m app.ModelLink) string {
	s := strings.TrimSpace(m.Provider + " " + m.Model)
	if m.Endpoint != "" {
		s += " at " + m.Endpoint
	}
	return s
}

// tokensText is a count of tokens for the figures.
func tokensText(n int) string { return count(n) }

// costText is a total's cost as `jarvisbot usage` says it, honest about
// the calls whose model has no price.
func costText(t usage.Totals) string { return t.CostText() }

// savedText says what the gate saved of a total's tool schemas.
func savedText(t usage.Totals) string {
	if t.CatalogTokens == 0 {
		return "—"
	}
	return percent(t.Saved())
}

// perCall is a total divided by the calls, to one decimal.
func perCall(n, calls int) string {
	if calls == 0 {
		return "0"
	}
	return trimZero(fmt.Sprintf("%.1f", float64(n)/float64(calls)))
}

// tokensPerCall is a total of tokens divided by the calls, whole.
func tokensPerCall(n, calls int) string {
	if calls == 0 {
		return "0"
	}
	return count(float64(n) / float64(calls))
}

// plural is n and its noun, in the plural when n is not one.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return count(n) + " " + many
}

// joinNames lists names for a sentence.
func joinNames(names []string) string { return strings.Join(names, ", ") }
