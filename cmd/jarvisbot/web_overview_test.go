package main

import (
	"context"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	usagereport "github.com/jarvisbot/jarvisbot/agents/usage"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
	"github.com/jarvisbot/jarvisbot/web"
)

// evalIn runs a script on the browser's page and returns its value.
func evalIn[T any](b *browserPage, what, expr string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.t.Fatalf("browser: %s: %v\npage text:\n%s", what, err, b.text())
	}
	return v
}

// TestDashboardOverviewInABrowserW2: two earlier days of model calls by
// two agents and their counted turns and tool calls are in the store, and
// one message from the owner runs a real turn today; the dashboard, signed
// into with a one-time link, opens on the Overview, its first tab, which draws
// the tokens, cost, gate, turns and tiers charts from those records, with
// the same totals as the usage use case the CLI reads. Screenshots at a
// desktop's and a phone's width are kept among the artifacts.
func TestDashboardOverviewInABrowserW2(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	e.vars["JARVIS_TIMEZONE"] = "Europe/Berlin"
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	today := usagereport.DayStart(e.clock.Now(), berlin)
	record(t, e, today)

	base, _, stop := startDashboard(t, e)
	defer stop()
	f.Push(fakellm.Step{Text: "Good morning: nothing is due today.", Usage: fakellm.Usage{InputTokens: 1500, OutputTokens: 40}})
	tg.SendText(42, 42, "anything due today?")
	waitSent(t, tg, "the answer to the owner's message", func(s []faketelegram.Sent) bool { return hasText(s, 42, "nothing is due today") })

	b := openBrowser(t, base, artifactDir(t, "overview"))
	// A link made as /dashboard makes it (not read back from the chat,
	// whose formatting may take a token's underscores for italics).
	db, err := sqlstore.Open(context.Background(), app.DBPath(mustConfig(t, e)))
	if err != nil {
		t.Fatal(err)
	}
	link, err := web.NewLink(context.Background(), db, base, e.clock.Now())
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	b.do("opening the sign-in link", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS(`form[action="/login"] button`)))
	b.shot("01-sign-in")
	// The sign-in ends on /, the Overview.
	b.do("pressing Sign in", chromedp.Click(chromedp.CSS(`form[action="/login"] button`)), chromedp.WaitVisible(chromedp.CSS("nav")))
	b.do("the Overview's charts", chromedp.WaitVisible(chromedp.CSS(`svg#chart-tokens`)))
	b.shot("02-overview")

	first := evalIn[[]string](b, "the first tab", `(() => { const a = document.querySelector("nav a"); return [a.getAttribute("href"), a.innerText, a.getAttribute("aria-current") || ""]; })()`)
	if strings.Join(first, "|") != "/|Overview|page" {
		t.Errorf("the first tab is %q, want the current Overview at /", first)
	}
	if second := evalIn[string](b, "the second tab", `document.querySelectorAll("nav a")[1].getAttribute("href")`); second != "/plugins" {
		t.Errorf("the second tab goes to %q, want /plugins", second)
	}

	parts := func(chart, series string) int {
		return evalIn[int](b, "counting "+chart+"'s bars", `document.querySelectorAll(`+jsString(`svg#`+chart+` rect[data-series="`+series+`"]`)+`).length`)
	}
	for _, tc := range []struct {
		chart, series string
		want          int
	}{
		// The two recorded days, and today's turn: its call is stamped on
		// the app's clock, the one the window ends on.
		{"chart-tokens", "default", 3},
		{"chart-tokens", "inbox", 1},
		{"chart-cost", "inbox", 1},
		{"chart-gate", "schema tokens sent", 3},
		{"chart-gate", "saved by the gate", 3}, // today's turn was not offered the memory builtin ("anything due today?" asks about nothing said before): its schema saved
		{"chart-turns", "answered", 2},         // the day before, and today's turn, counted on the app's clock
		{"chart-turns", "failed", 1},
		{"chart-tiers", "ask", 1},
	} {
		if got := parts(tc.chart, tc.series); got != tc.want {
			t.Errorf("%s has %d bars of %s, want %d", tc.chart, got, tc.series, tc.want)
		}
	}
	for _, sel := range []string{`svg#chart-tokens [data-legend="inbox"]`, `svg#chart-tokens title`, `svg#chart-tokens desc`,
		`#ov-channels li[data-channel="telegram"][data-connected="true"]`, `#ov-turns li[data-key="ok"][data-count="6"]`,
		`#ov-tiers li[data-key="safe"][data-count="7"]`, `#ov-next li[data-skill="morning-brief"]`} {
		if !evalIn[bool](b, "finding "+sel, `!!document.querySelector(`+jsString(sel)+`)`) {
			t.Errorf("the Overview has no %s", sel)
		}
	}
	model := evalIn[string](b, "the model", `document.querySelector("#ov-model").innerText`)
	if !strings.Contains(model, "anthropic test-model") {
		t.Errorf("the model card says %q", model)
	}

	// The figures are the usage use case's, which the CLI reads.
	in, err := e.app(strings.NewReader(""), io.Discard, io.Discard).OpenInstallation(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	rep, err := in.Usage(context.Background(), today.AddDate(0, 0, -(app.OverviewDays-1)), usagereport.ByAgent)
	if err != nil {
		t.Fatal(err)
	}
	total := evalIn[string](b, "the total", `document.querySelector("#ov-total").innerText`)
	if rep.Total.Calls != 4 || !strings.Contains(total, commaCount(rep.Total.Tokens())) || !strings.Contains(total, strconv.Itoa(rep.Total.Calls)) {
		t.Errorf("the page's total %q; the use case's: %d calls, %d tokens", total, rep.Total.Calls, rep.Total.Tokens())
	}
	for _, r := range rep.Rows {
		row := evalIn[string](b, "an agent's row", `document.querySelector(`+jsString(`#ov-agents tr[data-agent="`+r.Key+`"]`)+`)?.innerText || ""`)
		if !strings.Contains(row, commaCount(r.Tokens())) {
			t.Errorf("%s's row %q lacks its %d tokens", r.Key, row, r.Tokens())
		}
	}

	b.do("a phone's screen", chromedp.EmulateViewport(390, 844))
	b.open("/")
	b.shot("03-overview-phone")
	if w := evalIn[float64](b, "the chart's width on a phone", `document.querySelector("svg#chart-tokens").getBoundingClientRect().width`); w <= 0 || w > 390 {
		t.Errorf("on a phone the chart is %vpx wide", w)
	}
}

// record puts two earlier days of calls by two agents, and the turns and
// tool calls counted on the day before today, into e's store.
func record(t *testing.T, e *testEnv, today time.Time) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, app.DBPath(mustConfig(t, e)))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, c := range []store.ModelCall{
		{At: today.AddDate(0, 0, -2).Add(9 * time.Hour), Agent: "default", Source: "chat", Chat: "telegram:42", Provider: "anthropic", Model: "claude-sonnet-4-5",
			InputTokens: 120_000, OutputTokens: 3_000, CacheReadTokens: 40_000, Outcome: "ok", ToolsSent: 6, ToolTokens: 2_400, CatalogTokens: 30_000},
		{At: today.AddDate(0, 0, -1).Add(8 * time.Hour), Agent: "default", Source: "schedule:morning-brief", Chat: "telegram:42", Provider: "anthropic", Model: "claude-sonnet-4-5",
			InputTokens: 80_000, OutputTokens: 2_000, Outcome: "ok", ToolsSent: 4, ToolTokens: 1_600, CatalogTokens: 30_000},
		{At: today.AddDate(0, 0, -1).Add(10 * time.Hour), Agent: "inbox", Source: "chat", Chat: "telegram:42", Provider: "openai", Model: "gpt-4.1",
			InputTokens: 50_000, OutputTokens: 1_000, Outcome: "ok", ToolsSent: 3, ToolTokens: 900, CatalogTokens: 12_000},
	} {
		if err := db.RecordModelCall(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	day := today.AddDate(0, 0, -1).Format(time.DateOnly)
	for _, tl := range []store.Tally{
		{Kind: store.TallyTurn, Key: "ok", Count: 5}, {Kind: store.TallyTurn, Key: "error", Count: 1},
		{Kind: store.TallyToolCall, Key: "safe", Count: 7}, {Kind: store.TallyToolCall, Key: "ask", Count: 2},
	} {
		if err := db.AddTally(ctx, day, "", tl.Kind, tl.Key, tl.Count); err != nil {
			t.Fatal(err)
		}
	}
}

// commaCount writes n with its thousands separated, as the page does.
func commaCount(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
