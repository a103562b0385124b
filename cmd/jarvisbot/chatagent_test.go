package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakediscord"
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

// TestChatsReachTheirAgentsOnDiscordA4: a Discord channel bound to an
// agent reaches it, the owner's DM reaches the default agent, and the
// /agent slash command switches the DM.
func TestChatsReachTheirAgentsOnDiscordA4(t *testing.T) {
	e := newTestEnv(t)
	f := withModel(t, e)
	dc := fakediscord.New(t)
	e.vars["DISCORD_BOT_TOKEN"], e.vars["JARVIS_DISCORD_API_BASE"] = dc.Token(), dc.URL()
	e.vars["JARVIS_DISCORD_OWNERS"] = "777"
	e.writeConfig(t, `
agents:
  builder:
    description: reviews pull requests
    chats: ["discord:900"]
`)
	who := regexp.MustCompile(`^You are (\S+),`)
	f.Respond(func(r fakellm.Request) fakellm.Step {
		name := "someone"
		if m := who.FindStringSubmatch(r.System); m != nil {
			name = m[1]
		}
		return fakellm.Step{Text: name + " heard: " + r.Messages[len(r.Messages)-1].Text}
	})
	out, stopServe := startServe(t, e)
	defer stopServe()
	waitOutput(t, out, "jarvisbot is ready")
	answered := func(channel, want string) string {
		t.Helper()
		var got string
		waitFor(t, want+" in "+channel, func() (bool, any) {
			for _, m := range dc.Sent() {
				if m.ChannelID == channel && strings.Contains(m.Content, want) {
					got = m.Content
					return true, nil
				}
			}
			return false, dc.Sent()
		})
		return got
	}
	dc.SendText("900", "777", "<@"+dc.BotID()+"> is the build green?")
	if got := answered("900", "builder heard: is the build green?"); strings.Contains(got, "builder:**") {
		t.Errorf("the bound channel's own agent names itself: %q", got)
	}
	dm := dc.DMChannel("777")
	dc.SendText(dm, "777", "hello there")
	answered(dm, "default heard: hello there")
	id := dc.SlashCommand(dm, "777", "agent", "builder")
	waitFor(t, "the answer to /agent builder", func() (bool, any) {
		for _, r := range dc.InteractionReplies() {
			if r.InteractionID == id && strings.Contains(r.Content, "Agent builder answers this chat from now on") {
				return true, nil
			}
		}
		for _, m := range dc.Sent() {
			if m.ChannelID == dm && strings.Contains(m.Content, "Agent builder answers this chat from now on") {
				return true, nil
			}
		}
		return false, dc.InteractionReplies()
	})
	dc.SendText(dm, "777", "and the tests?")
	if got := answered(dm, "builder heard: and the tests?"); !strings.Contains(got, "builder:") {
		t.Errorf("the switched DM's reply does not say who answered: %q", got)
	}
}

// TestBoundAgentAsksUnderItsNameA4: an ask-tier call by the agent a group
// is bound to asks for approval under that agent's name.
func TestBoundAgentAsksUnderItsNameA4(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	e.writeConfig(t, `
tiers:
  builtin:wiki: ask
agents:
  inbox:
    description: a daily overview of my mail
    chats: ["telegram:-100500"]
`)
	out, stopServe := startServe(t, e)
	defer stopServe()
	waitOutput(t, out, "jarvisbot is ready")
	f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("builtin:wiki"), Input: `{"action":"write","name":"mail","body":"three letters"}`}}},
		fakellm.Step{Text: "Not saved."})
	tg.SendText(-100500, 42, "note in the wiki that three letters came")
	waitSent(t, tg, "the approval request", func(s []faketelegram.Sent) bool {
		for _, m := range s {
			if strings.Contains(m.Text, "Approval needed") && len(m.Buttons) > 0 {
				if !strings.Contains(m.Text, "Asked by agent inbox") {
					t.Errorf("the request does not name the bound agent:\n%s", m.Text)
				}
				return true
			}
		}
		return false
	})
}
