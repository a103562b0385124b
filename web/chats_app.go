package web

import (
	"context"

	"github.com/jarvisbot/jarvisbot/app"
)

// ChatsTab is the Chats tab over the running service.
func ChatsTab(s *app.Session) Chats { return chatsTab{s} }

type chatsTab struct{ s *app.Session }

func (t chatsTab) Chats(ctx context.Context) ([]ChatRow, error) {
	list, err := t.s.ChatConversations(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ChatRow, 0, len(list))
	for _, c := range list {
		out = append(out, ChatRow{Chat: c.Chat, Agent: c.Agent, Messages: c.Messages, LastAt: c.LastAt, BegunAt: c.BegunAt, Summary: c.Summary, SummarizedAt: c.SummarizedAt})
	}
	return out, nil
}

func (t chatsTab) NewConversation(ctx context.Context, chat, agent string) error {
	_, err := t.s.NewAgentConversation(ctx, chat, agent)
	return err
}
