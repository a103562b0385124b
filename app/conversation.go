package app

import (
	"context"
	"fmt"
	"time"

	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/store"
)

// NewConversation starts the conversation of the agent that answers a
// chat afresh (/new): its next turns there see only what is said from now
// on; the earlier messages stay stored.
func (s *Service) NewConversation(ctx context.Context, chat string) (store.Conversation, error) {
	agent, err := s.ChatAgent(ctx, chat)
	if err != nil {
		return store.Conversation{}, err
	}
	return s.DB.NewConversation(ctx, chat, agent, s.env.Now())
}

// NewAgentConversation starts an agent's conversation in a chat afresh
// (the dashboard's Start afresh).
func (s *Service) NewAgentConversation(ctx context.Context, chat, agent string) (store.Conversation, error) {
	if _, err := s.DB.Agent(ctx, agent); err != nil {
		return store.Conversation{}, err
	}
	return s.DB.NewConversation(ctx, chat, agent, s.env.Now())
}

// ChatConversations lists the chats, the latest spoken in first, each
// with its current conversation and summary (the dashboard's Chats tab).
func (s *Service) ChatConversations(ctx context.Context) ([]store.ChatConversation, error) {
	return s.DB.ChatConversations(ctx, 200)
}

// ChatWindow tells how much of a chat's conversation its next turn sees
// (/history).
func (s *Service) ChatWindow(ctx context.Context, chat string) (agents.Window, error) {
	agent, err := s.ChatAgent(ctx, chat)
	if err != nil {
		return agents.Window{}, err
	}
	return s.runtime.Window(ctx, chat, agent)
}

// conversationCommands are the chat's /new and /history.
func (s *Service) conversationCommands(cmds map[string]func(ctx context.Context, chat string) string) {
	cmds["new"] = func(ctx context.Context, chat string) string {
		if _, err := s.NewConversation(ctx, chat); err != nil {
			s.log.Error("starting a new conversation", "chat", chat, "err", err)
			return "I could not start a new conversation: " + err.Error()
		}
		return "A new conversation begins. From your next message on I no longer see what was said before in this chat; it stays stored, and I can still search it when you ask about it."
	}
	cmds["history"] = func(ctx context.Context, chat string) string {
		w, err := s.ChatWindow(ctx, chat)
		if err != nil {
			s.log.Error("reading the conversation for /history", "chat", chat, "err", err)
			return "I could not read this conversation: " + err.Error()
		}
		return WindowText(w, s.env.Now(), s.Config.Location())
	}
}

// WindowText is /history's answer: what the next turn sees word for word,
// what a summary tells, and where the conversation began.
func WindowText(w agents.Window, now time.Time, zone *time.Location) string {
	text := fmt.Sprintf("In this conversation I see the last %s word for word (~%s tokens; up to %s fit).",
		plural(w.Messages, "message"), thousands(w.Tokens), thousands(w.Budget))
	c := w.Conversation
	switch {
	case c.Summary != "":
		text += fmt.Sprintf("\nWhat was said before is told by a summary written %s (~%s tokens).",
			ago(now.Sub(c.SummarizedAt)), thousands((len(c.Summary)+3)/4))
	case w.Unsent > 0:
		text += fmt.Sprintf("\n%s before those no longer fit; a summary of them is written after a turn.", plural(w.Unsent, "older message"))
	case w.Messages > 0:
		text += "\nEverything said in it fits."
	}
	if !c.BegunAt.IsZero() {
		text += "\nIt began with /new on " + c.BegunAt.In(zone).Format("Mon 2 Jan 15:04") + "; send /new to start afresh."
	} else {
		text += "\nSend /new to start afresh."
	}
	return text
}

// thousands writes n with its thousands separated: 24,000.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// ago says how long ago, roughly.
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute") + " ago"
	case d < 48*time.Hour:
		return plural(int(d/time.Hour), "hour") + " ago"
	}
	return plural(int(d/(24*time.Hour)), "day") + " ago"
}
