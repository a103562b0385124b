package store

import "context"

// DelegateSessions keeps, per agent and chat, the session a delegate (a
// coding CLI that is an agent's model, M5) left at the end of its last
// turn, so that the next turn in that chat resumes the CLI's conversation
// instead of starting a new one.
type DelegateSessions interface {
	// DelegateSession returns the session id kept for the agent in the
	// chat, "" when there is none.
	DelegateSession(ctx context.Context, agent, chat string) (string, error)
	// SetDelegateSession keeps id for the agent in the chat, replacing the
	// one kept before; "" forgets it.
	SetDelegateSession(ctx context.Context, agent, chat, id string) error
}
