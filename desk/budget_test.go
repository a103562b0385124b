package desk

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/budget"
	"github.com/jarvisbot/jarvisbot/agents/usage"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// budgetDesk is a desk whose agent has a daily budget of $1 (the model
// "m" costs $1 per million input tokens), on a clock pinned at noon, the
// owner "test:1" and the owner's main chat "test:main".
func budgetDesk(t *testing.T, mods ...func(*Options)) (*Desk, *chatPlatform, *fakellm.Server, *clock.Fake, *sqlstore.DB) {
	t.Helper()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFake(time.Date(2026, 12, 6, 12, 0, 0, 0, berlin))
	var rt *agents.Runtime
	d, plat, f, db := setupOpts(t, func(db *sqlstore.DB) Store { return db }, func(o *Options) {
		rt = o.Runtime.(*agents.Runtime)
		o.Clock, o.MainChat = clk, "test:main"
		for _, mod := range mods {
			mod(o)
		}
	}, "test:1")
	c := budget.New(budget.Options{Store: db, Clock: clk, Zone: berlin, Notify: d.BudgetNotifier("test:main"),
		Prices: usage.NewPrices(map[string]usage.Price{"m": {Input: 1}}),
		Limits: func() budget.Limits {
			return budget.Limits{Agents: map[string]budget.Pair{"default": {Day: budget.Limit{USD: 1}}}}
		}})
	rt.Usage, rt.Budget, rt.Clock = db, c, clk
	d.opt.Budget = c
	return d, plat, f, clk, db
}

// presses records the answers to button presses.
type presses struct {
	mu  sync.Mutex
	got []string
}

func (p *presses) press(d *Desk, user, data string) string {
	var answer string
	d.HandlePress(context.Background(), channels.Press{Chat: "test:main", User: user, MessageID: "9", Data: data,
		Answer: func(_ context.Context, s string) error { answer = s; return nil }})
	p.mu.Lock()
	p.got = append(p.got, answer)
	p.mu.Unlock()
	return answer
}

// buttonsIn returns the data of the buttons sent to chat, newest message
// last.
func (p *chatPlatform) buttonsIn(chat string) [][]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out [][]string
	for _, m := range p.sent {
		if m.Chat != chat || len(m.Buttons) == 0 {
			continue
		}
		var data []string
		for _, row := range m.Buttons {
			for _, b := range row {
				data = append(data, b.Data)
			}
		}
		out = append(out, data)
	}
	return out
}

func countIn(texts []string, words string) int {
	n := 0
	for _, s := range texts {
		if strings.Contains(s, words) {
			n++
		}
	}
	return n
}

// TestBudgetReachedMidDayStopsTheNextTurnA5: a budget reached mid-day
// stops the next turn with no model call; the chat is told why (which
// limit, spent against it, when it resets) once, the owner gets the
// buttons once, 80% was told once before; a stranger's press and forged
// data are refused; "allow one more turn" lets exactly one turn through,
// its button is taken once, and a raise lets the rest through.
func TestBudgetReachedMidDayStopsTheNextTurnA5(t *testing.T) {
	ctx := context.Background()
	d, plat, f, _, _ := budgetDesk(t)
	say := func(text string) {
		d.HandleMessage(ctx, channels.Message{Chat: "test:1", User: "test:1", Text: text})
	}
	answered := func(what string) {
		t.Helper()
		waitFor(t, what, func() (bool, any) { return slices.Contains(plat.to("test:1"), what), plat.to("test:1") })
	}
	f.Push(fakellm.Step{Text: "one", Usage: fakellm.Usage{InputTokens: 850_000}})
	say("first")
	answered("one")
	f.Push(fakellm.Step{Text: "two", Usage: fakellm.Usage{InputTokens: 200_000}})
	say("second") // at 85%: told once, then answered
	answered("two")
	if got := plat.to("test:main"); countIn(got, "80%") != 0 || countIn(got, "85% of the daily budget of agent default") != 1 {
		t.Fatalf("main chat %q, want the 80%% notice once", got)
	}

	// Over: no model call, the reason in the chat, the buttons in the main chat.
	say("third")
	waitFor(t, "the reason", func() (bool, any) { return countIn(plat.to("test:1"), "I did not start") == 1, plat.to("test:1") })
	want := "the daily budget of agent default is reached: $1.05 of $1.00 spent today; it resets at 00:00 CET (Mon 7 Dec)"
	if got := plat.to("test:1"); !strings.Contains(got[len(got)-1], want) {
		t.Errorf("the chat was told %q, want %q", got[len(got)-1], want)
	}
	waitFor(t, "the buttons", func() (bool, any) { return len(plat.buttonsIn("test:main")) == 1, plat.buttonsIn("test:main") })
	say("fourth") // waits behind the third, quietly
	waitFor(t, "the fourth queued", func() (bool, any) {
		d.mu.Lock()
		defer d.mu.Unlock()
		q := d.chats["test:1"]
		return q.held && !q.running && len(q.msgs) == 2, len(q.msgs)
	})
	if n := len(f.Requests()); n != 2 {
		t.Fatalf("%d model calls, want none after the limit", n)
	}
	if got := plat.to("test:1"); countIn(got, "I did not start") != 1 || len(plat.buttonsIn("test:main")) != 1 || countIn(plat.to("test:main"), "% of the daily budget") != 1 {
		t.Fatalf("told twice: chat %q, main %q", got, plat.to("test:main"))
	}

	buttons := plat.buttonsIn("test:main")[0]
	if len(buttons) != 3 {
		t.Fatalf("buttons %q, want raise by half, double and one more turn", buttons)
	}
	one := buttons[2]
	id := strings.Split(one, ":")[1]
	p := &presses{}
	for _, tc := range []struct{ user, data, want string }{
		{"test:99", one, "Only the owner can decide this."},
		{"test:1", "bu:" + id + ":x", "This button is not mine, or no longer valid."},
		{"test:1", "bu:" + id, "This button is not mine, or no longer valid."},
		{"test:1", "bu:../" + id + ":1", "This button is not mine, or no longer valid."},
		{"test:1", "bu:" + strings.ToUpper(id) + ":1", "This button is not mine, or no longer valid."},
		{"test:1", "bu:aaaaaaaaaaaaaaaaaaaaaaaaaa:1", "This offer is unknown (it may be from another jarvisbot)."},
	} {
		if got := p.press(d, tc.user, tc.data); got != tc.want {
			t.Errorf("press %q by %s: %q, want %q", tc.data, tc.user, got, tc.want)
		}
	}
	if n := len(f.Requests()); n != 2 {
		t.Fatalf("refused presses let %d model calls through", n-2)
	}

	// One more turn: the third is answered, the fourth waits again.
	f.Push(fakellm.Step{Text: "three", Usage: fakellm.Usage{InputTokens: 100_000}})
	if got := p.press(d, "test:1", one); !strings.Contains(got, "One more turn allowed for agent default") {
		t.Fatalf("the owner's press: %q", got)
	}
	answered("three")
	waitFor(t, "the fourth stopped", func() (bool, any) { return countIn(plat.to("test:1"), "I did not start") == 2, plat.to("test:1") })
	if n := len(f.Requests()); n != 3 {
		t.Fatalf("%d model calls, want exactly one more", n)
	}
	if got := p.press(d, "test:1", one); !strings.HasPrefix(got, "Already decided: One more turn allowed") {
		t.Errorf("the same button again: %q", got)
	}
	if got := p.press(d, "test:1", buttons[1]); !strings.HasPrefix(got, "Already decided") {
		t.Errorf("another button of the decided offer: %q", got)
	}

	// A new offer for the new stop; doubling lets the fourth through.
	waitFor(t, "new buttons", func() (bool, any) { return len(plat.buttonsIn("test:main")) == 2, plat.buttonsIn("test:main") })
	f.Push(fakellm.Step{Text: "four"})
	if got := p.press(d, "test:1", plat.buttonsIn("test:main")[1][1]); !strings.Contains(got, "Raised to double for today") {
		t.Fatalf("doubling: %q", got)
	}
	answered("four")
	if n := len(f.Requests()); n != 4 {
		t.Fatalf("%d model calls, want 4", n)
	}
}

// TestBudgetReleaseAtPeriodEndA5: a chat a budget stopped is answered
// once the period ends, with nobody pressing.
func TestBudgetReleaseAtPeriodEndA5(t *testing.T) {
	ctx := context.Background()
	d, plat, f, clk, _ := budgetDesk(t)
	spend(t, d, plat, f, 1_000_000)
	d.HandleMessage(ctx, channels.Message{Chat: "test:1", User: "test:1", Text: "second"})
	waitFor(t, "the stop", func() (bool, any) { return countIn(plat.to("test:1"), "I did not start") == 1, plat.to("test:1") })
	waitFor(t, "the release armed", func() (bool, any) { return clk.Pending() > 0, clk.Pending() })
	f.Push(fakellm.Step{Text: "two"})
	clk.Advance(12*time.Hour + time.Second)
	waitFor(t, "the second answered the next day", func() (bool, any) { return slices.Contains(plat.to("test:1"), "two"), plat.to("test:1") })
}

// TestBudgetWithReplicasA5: with replicas, a chat whose message a budget
// stopped is let go to be tried again later, its message still waiting in
// the store; the chat is told why once.
func TestBudgetWithReplicasA5(t *testing.T) {
	ctx := context.Background()
	q := &elsewhereQueue{}
	d, plat, f, _, db := budgetDesk(t, func(o *Options) { o.Queue = q })
	f.Push(fakellm.Step{Text: "one", Usage: fakellm.Usage{InputTokens: 1_000_000}})
	d.HandleMessage(ctx, channels.Message{Chat: "test:1", User: "test:1", Text: "first"})
	if err := d.AnswerChat(ctx, "test:1"); err != nil {
		t.Fatal(err)
	}
	d.HandleMessage(ctx, channels.Message{Chat: "test:1", User: "test:1", Text: "second"})
	for range 2 {
		err := d.AnswerChat(ctx, "test:1")
		var later *Later
		if !errors.As(err, &later) || later.RetryIn() != overBudgetWait {
			t.Fatalf("AnswerChat over budget: %v, want to be tried again in %v", err, overBudgetWait)
		}
	}
	waiting, err := db.WaitingIn(ctx, "test:1")
	if err != nil || len(waiting) != 1 || waiting[0].Text != "second" {
		t.Fatalf("waiting %+v %v, want the second message", waiting, err)
	}
	if got := plat.to("test:1"); countIn(got, "I did not start") != 1 || len(f.Requests()) != 1 {
		t.Errorf("chat %q, %d model calls: want the reason once and no call past the budget", got, len(f.Requests()))
	}
}

// TestBudgetRaisedWhileTheChatIsToldA5: the owner raises the limit as
// soon as "I did not start" arrives, before its turn has put the message
// back to wait: the message is answered then, not at the period's end.
func TestBudgetRaisedWhileTheChatIsToldA5(t *testing.T) {
	ctx := context.Background()
	d, plat, f, _, _ := budgetDesk(t)
	spend(t, d, plat, f, 1_100_000)

	p := &presses{}
	raised := make(chan string, 1)
	plat.mu.Lock()
	plat.onSend = func(m channels.Outgoing) {
		if m.Chat != "test:1" || !strings.HasPrefix(m.Text, "I did not start") {
			return
		}
		buttons := plat.buttonsIn("test:main")
		if len(buttons) != 1 || len(buttons[0]) != 3 {
			raised <- fmt.Sprintf("buttons %q when the chat was told", buttons)
			return
		}
		raised <- p.press(d, "test:1", buttons[0][1]) // double, at once
	}
	plat.mu.Unlock()
	f.Push(fakellm.Step{Text: "two"})
	d.HandleMessage(ctx, channels.Message{Chat: "test:1", User: "test:1", Text: "second"})
	if got := <-raised; !strings.Contains(got, "Raised to double for today") {
		t.Fatalf("the press as the chat was told: %q", got)
	}
	waitFor(t, "the second answered after the raise", func() (bool, any) {
		return slices.Contains(plat.to("test:1"), "two"), plat.to("test:1")
	})
	if n := len(f.Requests()); n != 2 {
		t.Errorf("%d model calls, want 2", n)
	}
}

// spend answers a first message "one" in the owner's chat with a model
// call of tokens input tokens (a dollar per million).
func spend(t *testing.T, d *Desk, plat *chatPlatform, f *fakellm.Server, tokens int) {
	t.Helper()
	f.Push(fakellm.Step{Text: "one", Usage: fakellm.Usage{InputTokens: tokens}})
	d.HandleMessage(context.Background(), channels.Message{Chat: "test:1", User: "test:1", Text: "first"})
	waitFor(t, "the first answer", func() (bool, any) { return slices.Contains(plat.to("test:1"), "one"), plat.to("test:1") })
}
