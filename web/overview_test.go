package web

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/agents/usage"
	"github.com/jarvisbot/jarvisbot/app"
)

// fixedOverview is an Overview that reads ov.
type fixedOverview struct{ ov app.Overview }

func (f fixedOverview) Overview(context.Context) (app.Overview, error) {
	if f.ov.Usage.Days == nil {
		f.ov.Usage.Days = window(time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC), nil)
	}
	return f.ov, nil
}

// window is the 30 days up to last, with calls[i] on day i (from the
// first) where given.
func window(last time.Time, calls map[int]map[string]usage.Totals) []app.DayUsage {
	days := make([]app.DayUsage, app.OverviewDays)
	for i := range days {
		d := app.DayUsage{Day: last.AddDate(0, 0, i-len(days)+1).Format(time.DateOnly), ByAgent: map[string]usage.Totals{}}
		for agent, t := range calls[i] {
			d.ByAgent[agent] = t
			addTotals(&d.Total, t)
		}
		days[i] = d
	}
	return days
}

// busyOverview is an installation with two agents' calls on two days,
// turns and tool calls counted, and something waiting.
func busyOverview() app.Overview {
	last := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)
	def := usage.Totals{Calls: 4, InputTokens: 30000, OutputTokens: 2000, Cost: 0.12, ToolsSent: 20, ToolTokens: 4000, CatalogTokens: 40000}
	inbox := usage.Totals{Calls: 1, InputTokens: 8000, Cost: 0.03, ToolsSent: 3, ToolTokens: 600, CatalogTokens: 6000}
	days := window(last, map[int]map[string]usage.Totals{28: {"default": def}, 29: {"default": def, "inbox": inbox}})
	turns := app.DailyCounts{Keys: []string{"ok", "error"}, Days: make([]map[string]int, 30), Totals: map[string]int{"ok": 5, "error": 1}, Total: 6}
	tiers := app.DailyCounts{Keys: []string{"safe", "ask"}, Days: make([]map[string]int, 30), Totals: map[string]int{"safe": 7, "ask": 2}, Total: 9}
	turns.Days[29] = map[string]int{"ok": 5, "error": 1}
	tiers.Days[29] = map[string]int{"safe": 7, "ask": 2}
	var total usage.Totals
	for _, d := range days {
		addTotals(&total, d.Total)
	}
	dd := def
	addTotals(&dd, def)
	return app.Overview{
		Zone:      "Europe/Berlin",
		Channels:  []app.ChannelState{{Name: "telegram", Connected: true}, {Name: "discord"}},
		Models:    []app.ModelLink{{Provider: "anthropic", Model: "claude-sonnet-4-5"}},
		Pause:     app.PauseState{Paused: true, By: "the owner"},
		Approvals: 2, Attention: []string{"Google Calendar"},
		NextRuns: []app.NextRun{{Skill: "morning-brief", At: time.Date(2026, 12, 7, 7, 0, 0, 0, time.UTC)}}, Scheduled: 1,
		Usage: app.UsageSeries{Days: days, Total: total,
			Agents: []usage.Row{{Key: "default", Totals: dd}, {Key: "inbox", Totals: inbox}}},
		Turns: turns, ToolCalls: tiers,
	}
}

// TestOverviewIsTheFirstTabW2: the dashboard opens on the Overview, the
// first tab, marked current; Plugins keeps its own address; without the
// overview's backend the page says so.
func TestOverviewIsTheFirstTabW2(t *testing.T) {
	d, sess, _ := dashboardSignedIn(t, Options{Overview: fixedOverview{busyOverview()}})
	body := d.page(t, "/", sess)
	links := regexp.MustCompile(`<nav>\s*<a href="([^"]+)"( aria-current="page")?>([^<]+)</a>\s*<a href="([^"]+)"`).FindStringSubmatch(body)
	if links == nil || links[1] != "/" || links[2] == "" || links[3] != "Overview" || links[4] != "/plugins" {
		t.Errorf("the navigation does not begin with the current Overview, then Plugins: %q", links)
	}
	if !strings.Contains(body, "<title>Overview · jarvisbot</title>") {
		t.Error("the page's title is not the Overview's")
	}

	none, sess2, _ := dashboardSignedIn(t, Options{Overview: nil})
	none.s.o.Overview = nil // newDashboard gives one by default
	if res, body := none.get(t, "/", sess2); res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "The overview is not available") {
		t.Errorf("without a backend: %s\n%s", res.Status, body)
	}
}

// TestOverviewShowsWhatRunsAndWaitsW2: channels and whether each hears
// the owner, the model, the pause, approvals and plugins needing
// attention (linked to their pages) and the next run.
func TestOverviewShowsWhatRunsAndWaitsW2(t *testing.T) {
	d, sess, _ := dashboardSignedIn(t, Options{Overview: fixedOverview{busyOverview()}})
	body := d.page(t, "/", sess)
	for _, want := range []string{
		`data-channel="telegram" data-connected="true"`, `data-channel="discord" data-connected="false"`, "not connected yet",
		"<code>anthropic claude-sonnet-4-5</code>", "No fallback",
		`id="ov-pause" data-paused="true"`, "Paused by the owner",
		`<a href="/approvals" class="tier-ask">2 requests wait for your decision</a>`,
		"Google Calendar: its sign-in needs renewing", `<a href="/plugins">Renew on the Plugins page</a>`,
		`data-skill="morning-brief"`, "Mon 2026-12-07 07:00", `<a href="/schedule">1 skill is scheduled</a>`, "Europe/Berlin",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the Overview lacks %s", want)
		}
	}
}

// TestOverviewChartsFromTheFiguresW2: with calls recorded the page draws
// the tokens, cost and gate charts with a bar part per agent and day, the
// tallies' charts, and beside each the same figures in words.
func TestOverviewChartsFromTheFiguresW2(t *testing.T) {
	d, sess, _ := dashboardSignedIn(t, Options{Overview: fixedOverview{busyOverview()}})
	body := d.page(t, "/", sess)
	for _, id := range []string{"chart-tokens", "chart-cost", "chart-gate", "chart-turns", "chart-tiers"} {
		if !strings.Contains(body, `<svg id="`+id+`"`) || !strings.Contains(body, `<title id="`+id+`-title">`) {
			t.Errorf("no chart %s", id)
		}
	}
	if n := strings.Count(chartOf(body, "chart-tokens"), `data-series="default"`); n != 2 {
		t.Errorf("the tokens chart has %d parts for default, want one on each of its 2 days", n)
	}
	for _, want := range []string{
		`data-label="Dec 6" data-series="inbox" data-value="8000"`, // its tokens on the last day
		`data-label="Dec 5" data-series="default" data-value="32000"`,
		`data-legend="default"`, `data-legend="inbox"`,
	} {
		if !strings.Contains(chartOf(body, "chart-tokens"), want) {
			t.Errorf("the tokens chart lacks %s", want)
		}
	}
	if !strings.Contains(chartOf(body, "chart-cost"), `data-label="Dec 6" data-series="default" data-value="0.12"`) {
		t.Errorf("the cost chart lacks default's last day:\n%s", chartOf(body, "chart-cost"))
	}
	// The last day: 5 calls, 4600 schema tokens sent of 46000: 920 sent and
	// 8280 saved per call.
	gate := chartOf(body, "chart-gate")
	if !strings.Contains(gate, `data-label="Dec 6" data-series="schema tokens sent" data-value="920"`) || !strings.Contains(gate, `data-label="Dec 6" data-series="saved by the gate" data-value="8280"`) {
		t.Errorf("the gate chart:\n%s", gate)
	}
	for _, want := range []string{
		`<tr data-agent="default">`, "64,000", "$0.24", // default: two days of 32,000 tokens, $0.12
		`<tr id="ov-total">`, "72,000", "$0.27",
		"The gate saved <strong>90%</strong>", "8,600 sent of 86,000",
		`data-key="ok" data-count="5"`, `data-key="error" data-count="1"`, "failed",
		`data-key="ask" data-count="2"`, "9 tool calls in all",
		`<tr data-day="2026-12-06">`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the figures lack %s", want)
		}
	}
	if strings.Contains(body, "No model calls yet") {
		t.Error("a busy installation says it has no calls")
	}
}

// chartOf is the SVG with id in body.
func chartOf(body, id string) string {
	start := strings.Index(body, `<svg id="`+id+`"`)
	if start < 0 {
		return ""
	}
	end := strings.Index(body[start:], "</svg>")
	return body[start : start+end]
}

// TestOverviewOfANewInstallationW2: nothing recorded shows sentences, not
// empty charts.
func TestOverviewOfANewInstallationW2(t *testing.T) {
	d, sess, _ := dashboardSignedIn(t, Options{Overview: fixedOverview{app.Overview{ModelErr: "no model is configured: set provider in the config"}}})
	body := d.page(t, "/", sess)
	for _, want := range []string{`id="ov-no-calls"`, "No model calls yet", "No turns counted yet", "No tool calls counted yet",
		"no model is configured", "No chat channel runs", "Nothing waits for your approval", "Nothing needs attention", "Today:</strong> 0 tokens, $0.00, 0 model calls"} {
		if !strings.Contains(body, want) {
			t.Errorf("a new installation's Overview lacks %q", want)
		}
	}
	if strings.Contains(body, "<svg id=") {
		t.Errorf("a new installation's Overview draws a chart")
	}
}

// TestOverviewTellsAPartItCouldNotReadW2: a part that could not be read
// is named; the rest shows.
func TestOverviewTellsAPartItCouldNotReadW2(t *testing.T) {
	ov := busyOverview()
	ov.Problems = []string{"the schedule: a skill's file is not readable"}
	d, sess, _ := dashboardSignedIn(t, Options{Overview: fixedOverview{ov}})
	body := d.page(t, "/", sess)
	if !strings.Contains(body, `id="overview-problems"`) || !strings.Contains(body, "the schedule: a skill") || !strings.Contains(body, `<svg id="chart-tokens"`) {
		t.Errorf("the problem or the rest is missing")
	}
}

// TestManyAgentsShareTheLastColourW2: past the colours the charts tell
// apart, the cheapest agents are one series, "other agents", whose
// figures are theirs together and who are named beside it.
func TestManyAgentsShareTheLastColourW2(t *testing.T) {
	var rows []usage.Row
	for i := range 10 {
		rows = append(rows, usage.Row{Key: fmt.Sprintf("agent%d", i), Totals: usage.Totals{Calls: 1, InputTokens: 100 * (10 - i)}})
	}
	shares := agentShares(rows)
	if len(shares) != maxAgentColours+1 {
		t.Fatalf("%d series for 10 agents", len(shares))
	}
	rest := shares[maxAgentColours]
	if rest.Name != otherAgents || strings.Join(rest.Others, ",") != "agent7,agent8,agent9" || rest.Totals.InputTokens != 300+200+100 || rest.Totals.Calls != 3 {
		t.Errorf("the rest: %+v", rest)
	}
	fills := map[string]bool{}
	for _, s := range shares {
		fills[s.Fill] = true
	}
	if len(fills) != len(shares) {
		t.Errorf("two series share a colour: %+v", shares)
	}
	if eight := agentShares(rows[:8]); len(eight) != 8 || eight[7].Name != "agent7" {
		t.Errorf("eight agents, as many colours: %+v", eight)
	}
}

// TestOverviewShowsTheFallbackAnsweringW2A3: a chain's links in order,
// and the fallback that answers now with why and since when.
func TestOverviewShowsTheFallbackAnsweringW2A3(t *testing.T) {
	ov := busyOverview()
	ov.Models = []app.ModelLink{{Provider: "anthropic", Model: "claude-sonnet-4-5"},
		{Fallback: true, Provider: "openai", Model: "gpt-4.1", Serving: true, Reason: "529 overloaded", Since: time.Date(2026, 12, 6, 8, 0, 0, 0, time.UTC)}}
	d, sess, _ := dashboardSignedIn(t, Options{Overview: fixedOverview{ov}})
	body := d.page(t, "/", sess)
	for _, want := range []string{`data-fallback="false" data-serving="false"`, `data-fallback="true" data-serving="true"`, "answering since", "529 overloaded"} {
		if !strings.Contains(body, want) {
			t.Errorf("the model card lacks %s", want)
		}
	}
	if strings.Contains(body, "No fallback") {
		t.Error("a chain is said to have no fallback")
	}
}
