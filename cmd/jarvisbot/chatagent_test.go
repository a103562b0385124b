package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
)

// TestChatsReachTheirAgentsOnTelegramA4: a Telegram group bound to an
// agent in the config reaches it; the owner's private chat reaches the
// default agent, @NAME sends one message to another agent (whose reply
// says who answered), /agent lists and switches the chat, the switch
// survives a restart, a stranger cannot switch, and each agent's history
// in the chat stays its own.
func TestChatsReachTheirAgentsOnTelegramA4(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	e.writeConfig(t, `
agents:
  inbox:
    description: a daily overview of my mail
    chats: ["telegram:-100500"]
`)
	who := regexp.MustCompile(`^You are (\S+),`)
	f.Respond(func(r fakellm.Request) fakellm.Step {
		name := "someone"
		if m := who.FindStringSubmatch(r.System); m != nil {
			name = m[1]
		}
		var said []string
		for _, m := range r.Messages {
			if m.Role == "user" {
				said = append(said, m.Text)
			}
		}
		return fakellm.Step{Text: name + " heard: " + strings.Join(said, " | ")}
	})
	out, stopServe := startServe(t, e)
	waitOutput(t, out, "jarvisbot is ready")

	seen := map[int64]int{}
	say := func(chat, user int64, text, want string) string {
		t.Helper()
		tg.SendText(chat, user, text)
		var got string
		waitSent(t, tg, "the answer to "+text, func(s []faketelegram.Sent) bool {
			n := 0
			for _, m := range s {
				if m.ChatID == chat && m.Method == "sendMessage" {
					if n++; n > seen[chat] && strings.Contains(m.Text, want) {
						got = m.Text
						return true
					}
				}
			}
			return false
		})
		seen[chat]++
		return got
	}

	if got := say(-100500, 42, "anything new?", "inbox heard: anything new?"); strings.Contains(got, "inbox:") {
		t.Errorf("the bound group's own agent names itself: %q", got)
	}
	say(42, 42, "remember the milk", "default heard: remember the milk")
	if got := say(42, 42, "@inbox any mail from the bank?", "inbox heard: any mail from the bank?"); !strings.Contains(got, "inbox:") || strings.Contains(got, "remember the milk") {
		t.Errorf("@inbox in the private chat: %q, want inbox named and its own history only", got)
	}
	if got := say(42, 42, "and the eggs", "default heard:"); !strings.Contains(got, "remember the milk | and the eggs") || strings.Contains(got, "bank") {
		t.Errorf("the default agent after @inbox: %q, want its own history only", got)
	}
	if got := say(42, 42, "/agent", "Agent default answers this chat."); !strings.Contains(got, "inbox — a daily overview of my mail") {
		t.Errorf("/agent: %q", got)
	}
	say(42, 42, "/agent inbox", "Agent inbox answers this chat from now on")
	say(42, 42, "what about invoices?", "inbox heard: any mail from the bank? | what about invoices?")
	if got := say(42, 42, "/agent nobody", "I could not switch"); !strings.Contains(got, `no agent "nobody"`) {
		t.Errorf("/agent nobody: %q", got)
	}
	tg.SendText(99, 99, "/agent default") // a stranger's private chat

	stopServe()
	out, stopServe = startServe(t, e)
	defer stopServe()
	waitOutput(t, out, "jarvisbot is ready")
	say(42, 42, "still you?", "inbox heard:")
	for _, m := range tg.Sent() {
		if m.ChatID == 99 && strings.Contains(m.Text, "answers this chat") {
			t.Errorf("a stranger switched an agent: %q", m.Text)
		}
	}
	if names := commandNames(tg.Commands()); !names["agent"] {
		t.Errorf("Telegram's menu lacks /agent: %v", names)
	}
}

func commandNames(cmds []faketelegram.Command) map[string]bool {
	out := map[string]bool{}
	for _, c := range cmds {
		out[c.Command] = true
	}
	return out
}
