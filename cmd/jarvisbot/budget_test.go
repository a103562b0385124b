package main

import (
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
)

// budgetButtons finds the last message to chat with budget buttons and
// returns its id and the buttons' data by label.
func budgetButtons(sent []faketelegram.Sent, chat int64) (int, map[string]string) {
	for i := len(sent) - 1; i >= 0; i-- {
		m := sent[i]
		if m.ChatID != chat || m.Method != "sendMessage" || !strings.Contains(m.Text, "Over budget") || len(m.Buttons) == 0 {
			continue
		}
		data := map[string]string{}
		for _, row := range m.Buttons {
			for _, b := range row {
				data[b.Text] = b.Data
			}
		}
		return m.MessageID, data
	}
	return 0, nil
}

// TestBudgetStopsTurnsAndTheButtonLetsOneThroughA5: the agent's daily
// budget is $1 (the model costs $1 per million input tokens). A turn at
// 90% is answered after the owner is told of 80%, once; the budget reached
// mid-day, the next message gets no model call, the owner reads why and
// gets the buttons; the morning brief due meanwhile is skipped and
// recorded as over budget; a stranger's press and forged data change
// nothing; "Allow one more turn" answers exactly the waiting message.
func TestBudgetStopsTurnsAndTheButtonLetsOneThroughA5(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	e.clock = clock.NewFake(time.Date(2026, 12, 2, 6, 50, 0, 0, time.Local))
	e.writeConfig(t, "prices:\n  test-model: {input: 1}\nbudgets:\n  agents:\n    default: {daily: $1}\n")
	out, stop := startServe(t, e)
	defer stop()
	waitOutput(t, out, "jarvisbot is ready")

	f.Push(fakellm.Step{Text: "First.", Usage: fakellm.Usage{InputTokens: 900_000}})
	tg.SendText(42, 42, "one")
	waitSent(t, tg, "the first answer", func(s []faketelegram.Sent) bool { return hasText(s, 42, "First.") })
	f.Push(fakellm.Step{Text: "Second.", Usage: fakellm.Usage{InputTokens: 200_000}})
	tg.SendText(42, 42, "two")
	waitSent(t, tg, "the 80% notice and the second answer", func(s []faketelegram.Sent) bool {
		return hasText(s, 42, "90% of the daily budget of agent default") && hasText(s, 42, "Second.")
	})

	tg.SendText(42, 42, "three")
	waitSent(t, tg, "the reason and the buttons", func(s []faketelegram.Sent) bool {
		_, b := budgetButtons(s, 42)
		return hasText(s, 42, "I did not start: the daily budget of agent default is reached: $1.10 of $1.00 spent today; it resets at 00:00") && len(b) == 3
	})
	if n := len(f.Requests()); n != 2 {
		t.Fatalf("%d model calls, want none past the budget", n)
	}

	// The morning brief at 07:00 is skipped, recorded as over budget.
	waitFor(t, "the 07:00 timer", func() (bool, any) { return e.clock.Pending() > 0, e.clock.Pending() })
	e.clock.Advance(11 * time.Minute)
	waitFor(t, "the brief recorded as over budget", func() (bool, any) {
		_, list, _ := e.jarvis(t, "", "schedule", "list")
		return strings.Contains(list, "over budget"), list
	})
	if n := len(f.Requests()); n != 2 {
		t.Fatalf("the scheduled run called the model: %d calls", n)
	}
	if c := countText(tg.Sent(), 42, "90% of the daily budget"); c != 1 {
		t.Errorf("the 80%% notice came %d times", c)
	}

	msg, buttons := budgetButtons(tg.Sent(), 42)
	one := buttons["Allow one more turn"]
	if one == "" || len(one) > 64 {
		t.Fatalf("buttons %q", buttons)
	}
	answers := len(tg.Answers())
	tg.Press(42, 77, msg, one) // a stranger in the owner's chat
	tg.Press(42, 42, msg, "bu:"+strings.Repeat("a", 26)+":1")
	tg.Press(42, 42, msg, strings.Replace(one, ":1", ":9", 1))
	got := tg.WaitAnswers(t, answers+3, 15*time.Second)[answers:]
	for i, want := range []string{"Only the owner can decide this.", "This offer is unknown", "This button is not mine"} {
		if !strings.Contains(got[i].Text, want) {
			t.Errorf("press %d answered %q, want %q", i, got[i].Text, want)
		}
	}
	if n := len(f.Requests()); n != 2 {
		t.Fatalf("refused presses let %d model calls through", n-2)
	}

	f.Push(fakellm.Step{Text: "Third, at last."})
	tg.Press(42, 42, msg, one)
	waitSent(t, tg, "the waiting message answered", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Third, at last.") })
	if reqs := f.Requests(); len(reqs) != 3 || reqs[2].Messages[len(reqs[2].Messages)-1].Text != "three" {
		t.Fatalf("%d model calls, want the waiting message's one", len(reqs))
	}
	tg.Press(42, 42, msg, one)
	if a := tg.WaitAnswers(t, answers+5, 15*time.Second); !strings.HasPrefix(a[len(a)-1].Text, "Already decided") {
		t.Errorf("the button pressed again: %q", a[len(a)-1].Text)
	}
	if m, ok := tg.Message(42, msg); !ok || len(m.Buttons) != 0 || !strings.Contains(m.Text, "One more turn allowed") {
		t.Errorf("the buttons' message after the press: %+v", m)
	}
}

// TestBudgetOutlivesARestartA5: a message a budget stopped waits across a
// restart: after it the 80% notice and the buttons are not sent again,
// the buttons from before the restart still work, and the message is
// answered then.
func TestBudgetOutlivesARestartA5(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	e.writeConfig(t, "prices:\n  test-model: {input: 1}\nbudgets:\n  daily: $1\n")
	out, stop := startServe(t, e)
	waitOutput(t, out, "jarvisbot is ready")
	f.Push(fakellm.Step{Text: "First.", Usage: fakellm.Usage{InputTokens: 900_000}},
		fakellm.Step{Text: "Second.", Usage: fakellm.Usage{InputTokens: 200_000}})
	tg.SendText(42, 42, "one")
	waitSent(t, tg, "the first answer", func(s []faketelegram.Sent) bool { return hasText(s, 42, "First.") })
	tg.SendText(42, 42, "two")
	waitSent(t, tg, "the second answer", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Second.") })
	tg.SendText(42, 42, "three")
	waitSent(t, tg, "the stop and the buttons", func(s []faketelegram.Sent) bool {
		_, b := budgetButtons(s, 42)
		return hasText(s, 42, "I did not start: the daily budget of the whole installation is reached") && len(b) == 3
	})
	stop()

	out, stop = startServe(t, e)
	defer stop()
	waitOutput(t, out, "jarvisbot is ready")
	waitSent(t, tg, "the waiting message stopped again", func(s []faketelegram.Sent) bool { return countText(s, 42, "I did not start") == 2 })
	sent := tg.Sent()
	if n := countText(sent, 42, "Over budget"); n != 1 {
		t.Errorf("the buttons were sent %d times, want once", n)
	}
	if n := countText(sent, 42, "90% of the daily budget"); n != 1 {
		t.Errorf("the 80%% notice came %d times, want once", n)
	}
	if n := len(f.Requests()); n != 2 {
		t.Fatalf("%d model calls, want none past the budget", n)
	}
	msg, buttons := budgetButtons(sent, 42)
	f.Push(fakellm.Step{Text: "Third, after the restart."})
	tg.Press(42, 42, msg, buttons["Double for today"])
	waitSent(t, tg, "the waiting message answered", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Third, after the restart.") })
	if reqs := f.Requests(); len(reqs) != 3 || reqs[2].Messages[len(reqs[2].Messages)-1].Text != "three" {
		t.Fatalf("%d model calls; the last was not the waiting message", len(reqs))
	}
}
