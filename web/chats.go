package web

import (
	"context"
	"net/http"
	"time"
)

// Chats is the Chats tab (A6): each agent's current conversation in each
// chat, where it began and the running summary of what no longer fits a
// turn.
type Chats interface {
	Chats(ctx context.Context) ([]ChatRow, error)
	// NewConversation starts the agent's conversation in a chat afresh, as
	// /new there does.
	NewConversation(ctx context.Context, chat, agent string) error
}

// ChatRow is one agent's conversation in a chat as the tab shows it.
type ChatRow struct {
	Chat     string
	Agent    string
	Messages int // in all its conversations
	LastAt   time.Time
	// BegunAt is when /new began the current conversation; zero when it
	// runs from the chat's first message.
	BegunAt      time.Time
	Summary      string
	SummarizedAt time.Time
}

// chatsRoutes are the Chats tab's pages and forms.
var chatsRoutes = []tabRoute{
	{"GET /chats", (*Server).chatsPage},
	{"POST /chats/new", (*Server).chatNew},
}

func (s *Server) chatsPage(w http.ResponseWriter, r *http.Request) {
	if s.o.Chats == nil {
		s.unavailable(w, r, "Chats")
		return
	}
	rows, err := s.o.Chats.Chats(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, "chats", "Chats", chatsContent(csrfFrom(r), rows))
}

// chatNew is the tab's "Start afresh" button; the chat is a form field,
// as chat ids hold colons and may hold slashes.
func (s *Server) chatNew(w http.ResponseWriter, r *http.Request) {
	if s.o.Chats == nil {
		s.unavailable(w, r, "Chats")
		return
	}
	chat, agent := r.PostFormValue("chat"), r.PostFormValue("agent")
	if chat == "" || agent == "" {
		s.refuse(w, r, http.StatusBadRequest, "Which chat and agent? The form names none.")
		return
	}
	err := s.o.Chats.NewConversation(r.Context(), chat, agent)
	s.finish(w, r, "/chats", "A new conversation of agent "+agent+" begins in "+chat+": its next turns there no longer see what was said before.", err)
}
