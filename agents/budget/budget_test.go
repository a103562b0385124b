package budget_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents/budget"
	"github.com/jarvisbot/jarvisbot/agents/usage"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// notes records what the owner was told.
type notes struct {
	mu sync.Mutex
	// fail makes the next Reached fail, as a chat that is down would.
	fail    bool
	warns   []string
	reached []store.BudgetOffer
	texts   []string
}

func (n *notes) Warn(_ context.Context, text string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.warns = append(n.warns, text)
	return nil
}

func (n *notes) Reached(_ context.Context, text string, o store.BudgetOffer) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.fail {
		n.fail = false
		return errors.New("telegram 502")
	}
	n.reached = append(n.reached, o)
	n.texts = append(n.texts, text)
	return nil
}

var berlin = func() *time.Location { l, _ := time.LoadLocation("Europe/Berlin"); return l }()

// noon is mid-day in the owner's zone.
var noon = time.Date(2026, 12, 6, 12, 0, 0, 0, berlin)

func open(t *testing.T) *sqlstore.DB {
	t.Helper()
	db, err := sqlstore.Open(context.Background(), filepath.Join(t.TempDir(), "j.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// call records a model call of agent at at: 1,000,000 input tokens of
// a model priced $1 per million in, so each costs $1.
func call(t *testing.T, db *sqlstore.DB, agent string, at time.Time) {
	t.Helper()
	if err := db.RecordModelCall(context.Background(), store.ModelCall{At: at, Agent: agent, Provider: "anthropic", Model: "test-model", InputTokens: 1_000_000, Outcome: "ok"}); err != nil {
		t.Fatal(err)
	}
}

func checker(db *sqlstore.DB, c clock.Clock, lim budget.Limits, n *notes) *budget.Checker {
	return budget.New(budget.Options{Store: db, Limits: func() budget.Limits { return lim }, Clock: c, Zone: berlin, Notify: n,
		Prices: usage.NewPrices(map[string]usage.Price{"test-model": {Input: 1}})})
}

// TestBudgetStopsAtTheLimitA5: the installation's and an agent's daily
// and monthly limits, in money and tokens, stop a turn once reached and
// not before; yesterday's calls do not count today; another agent's calls
// count for the installation only.
func TestBudgetStopsAtTheLimitA5(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lim   budget.Limits
		calls map[string][]time.Time // agent -> call times
		agent string
		over  string // "" for allowed, else words of the error
	}{
		{name: "no limits", calls: map[string][]time.Time{"default": {noon, noon}}, agent: "default"},
		{name: "agent daily dollars reached", lim: budget.Limits{Agents: map[string]budget.Pair{"default": {Day: budget.Limit{USD: 2}}}},
			calls: map[string][]time.Time{"default": {noon.Add(-time.Hour), noon.Add(-time.Minute)}}, agent: "default",
			over: "the daily budget of agent default is reached: $2.00 of $2.00 spent today; it resets at 00:00 CET (Mon 7 Dec)"},
		{name: "agent daily under", lim: budget.Limits{Agents: map[string]budget.Pair{"default": {Day: budget.Limit{USD: 3}}}},
			calls: map[string][]time.Time{"default": {noon, noon}}, agent: "default"},
		{name: "yesterday does not count today", lim: budget.Limits{Agents: map[string]budget.Pair{"default": {Day: budget.Limit{USD: 2}}}},
			calls: map[string][]time.Time{"default": {noon.Add(-13 * time.Hour), noon.Add(-24 * time.Hour), noon}}, agent: "default"},
		{name: "but it counts this month", lim: budget.Limits{Agents: map[string]budget.Pair{"default": {Month: budget.Limit{USD: 3}}}},
			calls: map[string][]time.Time{"default": {noon.Add(-13 * time.Hour), noon.Add(-24 * time.Hour), noon}}, agent: "default",
			over: "the monthly budget of agent default is reached: $3.00 of $3.00 spent this month; it resets at 00:00 CET (Fri 1 Jan)"},
		{name: "installation tokens count every agent", lim: budget.Limits{All: budget.Pair{Day: budget.Limit{Tokens: 2_000_000}}},
			calls: map[string][]time.Time{"default": {noon}, "research": {noon}}, agent: "default",
			over: "the daily budget of the whole installation is reached: 2,000,000 of 2,000,000 tokens spent today"},
		{name: "another agent's limit is not this one's", lim: budget.Limits{Agents: map[string]budget.Pair{"research": {Day: budget.Limit{USD: 1}}}},
			calls: map[string][]time.Time{"research": {noon, noon}}, agent: "default"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := open(t)
			for agent, times := range tc.calls {
				for _, at := range times {
					call(t, db, agent, at)
				}
			}
			n := &notes{}
			err := checker(db, clock.NewFake(noon), tc.lim, n).Allow(context.Background(), tc.agent, "chat")
			if tc.over == "" {
				if err != nil {
					t.Fatalf("Allow: %v, want allowed", err)
				}
				return
			}
			var over *budget.Over
			if !errors.As(err, &over) || !strings.Contains(err.Error(), tc.over) {
				t.Fatalf("Allow: %v, want an *Over saying %q", err, tc.over)
			}
			if len(n.reached) != 1 || n.reached[0].ID != over.Offer || over.Offer == "" {
				t.Errorf("offers shown %+v for %q, want the one offer", n.reached, over.Offer)
			}
		})
	}
}

// TestBudgetWarnsOnceAndOffersOnceA5: 80% tells the owner once, also
// after a restart (a new checker over the same store); a reached limit
// shows its buttons once while they are open; one more turn lets exactly
// one turn through, and not a scheduled run; a raise lifts the limit for
// the period only; a decision is taken once.
func TestBudgetWarnsOnceAndOffersOnceA5(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	clk := clock.NewFake(noon)
	lim := budget.Limits{Agents: map[string]budget.Pair{"default": {Day: budget.Limit{USD: 5}}}}
	n := &notes{}
	for range 4 {
		call(t, db, "default", noon.Add(-time.Hour))
	}
	for range 2 { // a restart: a new checker
		if err := checker(db, clk, lim, n).Allow(ctx, "default", "chat"); err != nil {
			t.Fatal(err)
		}
	}
	if len(n.warns) != 1 || !strings.Contains(n.warns[0], "$4.00 of $5.00 spent today, 80% of the daily budget of agent default") {
		t.Fatalf("warnings %q, want one at 80%%", n.warns)
	}
	call(t, db, "default", noon)
	c := checker(db, clk, lim, n)
	for range 2 {
		if err := c.Allow(ctx, "default", "chat"); !errors.As(err, new(*budget.Over)) {
			t.Fatalf("Allow at the limit: %v", err)
		}
	}
	if len(n.reached) != 1 || len(n.warns) != 1 {
		t.Fatalf("offers %d, warnings %d: want one offer and no more warnings", len(n.reached), len(n.warns))
	}
	offer := n.reached[0]

	// One more turn: exactly one chat turn; a scheduled run does not take it.
	if _, _, err := c.Decide(ctx, offer.ID, "telegram:42", budget.ChoiceOne); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Decide(ctx, offer.ID, "telegram:42", budget.ChoiceDouble); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
		t.Fatalf("second decision: %v, want ECONFLICT", err)
	}
	if _, _, err := c.Decide(ctx, "nosuchoffer", "telegram:42", budget.ChoiceOne); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Fatalf("unknown offer: %v, want ENOTFOUND", err)
	}
	for _, source := range []string{"schedule:brief", "app:notes"} {
		if err := c.Allow(ctx, "default", source); !errors.As(err, new(*budget.Over)) {
			t.Fatalf("a turn from %s took the owner's one more turn: %v", source, err)
		}
	}
	if err := c.Allow(ctx, "default", "chat"); err != nil {
		t.Fatalf("the allowed turn: %v", err)
	}
	if err := c.Allow(ctx, "default", "chat"); !errors.As(err, new(*budget.Over)) {
		t.Fatalf("the turn after the allowed one: %v, want stopped", err)
	}
	if len(n.reached) != 2 {
		t.Fatalf("%d offers, want a new one once the first was decided", len(n.reached))
	}

	// Doubled for today: $10 now; tomorrow the limit is $5 again.
	if _, text, err := c.Decide(ctx, n.reached[1].ID, "telegram:42", budget.ChoiceDouble); err != nil || !strings.Contains(text, "Raised to double for today") {
		t.Fatalf("doubling: %q %v", text, err)
	}
	if err := c.Allow(ctx, "default", "chat"); err != nil {
		t.Fatalf("after doubling: %v", err)
	}
	rules, err := c.Rules(ctx, "default")
	if err != nil || len(rules) != 1 || rules[0].Limit.USD != 10 {
		t.Fatalf("rules %+v %v, want $10 today", rules, err)
	}
	clk.Advance(24 * time.Hour)
	if rules, err = c.Rules(ctx, "default"); err != nil || len(rules) != 1 || rules[0].Limit.USD != 5 {
		t.Fatalf("rules tomorrow %+v %v, want $5 again", rules, err)
	}
}

// TestOwnerLimitWinsOverConfigA5: a limit set on the dashboard replaces
// the config's; one of neither money nor tokens lifts it.
func TestOwnerLimitWinsOverConfigA5(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	call(t, db, "default", noon)
	call(t, db, "default", noon)
	lim := budget.Limits{All: budget.Pair{Day: budget.Limit{USD: 1}}}
	c := checker(db, clock.NewFake(noon), lim, &notes{})
	if err := c.Allow(ctx, "default", "chat"); err == nil {
		t.Fatal("the config's limit did not stop the turn")
	}
	if err := db.SetBudgetLimit(ctx, store.BudgetLimit{Period: store.PeriodDay}); err != nil {
		t.Fatal(err)
	}
	if err := c.Allow(ctx, "default", "chat"); err != nil {
		t.Fatalf("the owner lifted the limit, yet: %v", err)
	}
	if err := db.SetBudgetLimit(ctx, store.BudgetLimit{Period: store.PeriodDay, Agent: "default", Tokens: 1000}); err != nil {
		t.Fatal(err)
	}
	if err := c.Allow(ctx, "default", "chat"); err == nil || !strings.Contains(err.Error(), "2,000,000 of 1,000 tokens") {
		t.Fatalf("the owner's agent limit: %v", err)
	}
}

// TestBudgetOfferNotShownIsOfferedAgainA5: buttons the owner could not be
// shown (the chat was down) are offered again at the next stopped turn,
// not kept as an offer nobody sees.
func TestBudgetOfferNotShownIsOfferedAgainA5(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	call(t, db, "default", noon)
	n := &notes{fail: true}
	c := checker(db, clock.NewFake(noon), budget.Limits{All: budget.Pair{Day: budget.Limit{USD: 1}}}, n)
	var over *budget.Over
	if err := c.Allow(ctx, "default", "chat"); !errors.As(err, &over) || over.Offer != "" {
		t.Fatalf("first stop: %v (offer %q), want over with no offer shown", err, over.Offer)
	}
	if err := c.Allow(ctx, "default", "chat"); !errors.As(err, &over) || over.Offer == "" || len(n.reached) != 1 || n.reached[0].ID != over.Offer {
		t.Fatalf("second stop: %v, offers shown %+v", err, n.reached)
	}
	offers, err := db.BudgetOffers(ctx, time.Time{})
	if err != nil || len(offers) != 1 {
		t.Errorf("offers kept %+v %v, want the one shown", offers, err)
	}
}

// BenchmarkBudgetAllow is the check before every turn, against a month
// of calls (3,000 of them, three agents, two models): what it sums is
// grouped in the store, so it grows with the models, not the calls.
func BenchmarkBudgetAllow(b *testing.B) {
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, filepath.Join(b.TempDir(), "j.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for i := range 3000 {
		c := store.ModelCall{At: noon.Add(-time.Duration(i) * 10 * time.Minute), Agent: []string{"default", "research", "inbox"}[i%3],
			Provider: "anthropic", Model: []string{"test-model", "other"}[i%2], InputTokens: 1000, OutputTokens: 100, Outcome: "ok"}
		if err := db.RecordModelCall(ctx, c); err != nil {
			b.Fatal(err)
		}
	}
	c := budget.New(budget.Options{Store: db, Clock: clock.NewFake(noon), Zone: berlin, Prices: usage.NewPrices(nil),
		Limits: func() budget.Limits {
			return budget.Limits{All: budget.Pair{Month: budget.Limit{USD: 1e6}}, Agents: map[string]budget.Pair{"default": {Day: budget.Limit{Tokens: 1e12}}}}
		}})
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Allow(ctx, "default", "chat"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLimitWordsA5: limits and counts as the owner reads them.
func TestLimitWordsA5(t *testing.T) {
	for _, tc := range []struct {
		l    budget.Limit
		want string
	}{
		{budget.Limit{}, "no limit"},
		{budget.Limit{USD: 5}, "$5.00"},
		{budget.Limit{USD: 0.004}, "$0.0040"},
		{budget.Limit{Tokens: 999}, "999 tokens"},
		{budget.Limit{Tokens: 1000}, "1,000 tokens"},
		{budget.Limit{Tokens: 2_000_000}, "2,000,000 tokens"},
		{budget.Limit{USD: 1, Tokens: 123_456}, "$1.00 and 123,456 tokens"},
	} {
		if got := tc.l.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.l, got, tc.want)
		}
	}
}
