package main

import (
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
)

// TestNewAndHistoryOnTelegramA6: the owner asks /history how much of the
// conversation the agent sees, starts afresh with /new, and the next
// message's turn no longer carries what was said before; both commands
// are offered in Telegram's menu.
func TestNewAndHistoryOnTelegramA6(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	f.Respond(func(fakellm.Request) fakellm.Step { return fakellm.Step{Text: "Noted."} })
	out, stopServe := startServe(t, e)
	defer stopServe()
	waitOutput(t, out, "jarvisbot is ready")

	answers := 0
	say := func(text, want string) string {
		t.Helper()
		tg.SendText(42, 42, text)
		var got string
		waitSent(t, tg, "the answer to "+text, func(s []faketelegram.Sent) bool {
			n := 0
			for _, m := range s {
				if m.ChatID == 42 && m.Method == "sendMessage" {
					if n++; n > answers && strings.Contains(m.Text, want) {
						got = m.Text
						return true
					}
				}
			}
			return false
		})
		answers++
		return got
	}

	say("my landlord is called Mr Okafor", "Noted.")
	h := say("/history", "In this conversation")
	for _, want := range []string{"I see the last 2 messages word for word", "Everything said in it fits.", "Send /new to start afresh."} {
		if !strings.Contains(h, want) {
			t.Errorf("/history does not say %q:\n%s", want, h)
		}
	}
	if n := say("/new", "A new conversation begins."); !strings.Contains(n, "stays stored") {
		t.Errorf("/new: %s", n)
	}
	say("what is my landlord called?", "Noted.")
	reqs := f.Requests()
	last := reqs[len(reqs)-1]
	if len(last.Messages) != 1 || !strings.Contains(last.Messages[0].Text, "what is my landlord called?") {
		t.Errorf("the turn after /new was sent %+v, want only its own message", last.Messages)
	}
	if h = say("/history", "In this conversation"); !strings.Contains(h, "the last 2 messages") || !strings.Contains(h, "It began with /new on ") {
		t.Errorf("/history after /new:\n%s", h)
	}
	// The old conversation is out of the window, not out of the search.
	if found := e.mustJarvis(t, "", "memory", "search", "landlord", "Okafor"); !strings.Contains(found, "Mr Okafor") {
		t.Errorf("memory search after /new does not find the old conversation:\n%s", found)
	}

	names := map[string]bool{}
	for _, c := range tg.Commands() {
		names[c.Command] = true
	}
	if !names["new"] || !names["history"] {
		t.Errorf("Telegram's menu lacks /new or /history: %+v", tg.Commands())
	}
}
