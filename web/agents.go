package web

import (
	"context"
	"net/http"
	"strings"
)

// Agents is what the Agents tab reads and changes (A1): the owner's
// agents, added with a name and a description that chooses their focus
// (C6), with allow and block lists, through the use cases `jarvisbot
// agents` runs too (AgentsTab). The changes answer in the CLI's words.
type Agents interface {
	// Agents lists the agents by name.
	Agents(ctx context.Context) ([]Agent, error)
	// Agent is one agent with its recent calls.
	Agent(ctx context.Context, name string) (AgentPage, error)
	// AddAgent adds an agent as `agents add NAME --describe` does and
	// says what it got, its focus first.
	AddAgent(ctx context.Context, name, description string) (string, error)
	// EditAgent changes an agent as `agents edit` does; a description
	// that changed chooses its focus anew.
	EditAgent(ctx context.Context, name string, e AgentEdit) (string, error)
	// RemoveAgent removes an agent (never the default one).
	RemoveAgent(ctx context.Context, name string) (string, error)
	// SwitchChat makes agent answer a chat, as /agent NAME in it does;
	// an empty agent takes the switch back. It says what changed.
	SwitchChat(ctx context.Context, chat, agent string) (string, error)
}

// Agent is an agent as the owner set it up.
type Agent struct {
	Name        string
	Description string
	Focus       []string
	Allow       []string
	Block       []string
	Provider    string // "" for the installation's model
	Default     bool   // the agent for every message that names none; it cannot be removed
}

// AgentPage is an agent's page: the agent, its recent calls on the
// activity board, and the providers it may be given.
type AgentPage struct {
	Agent
	Recent    []ActivityRow
	Providers []string
	// Missing are the store plugins in its focus not connected yet, with
	// where to connect them.
	Missing []AgentPlugin
	// Chats are the chats it answers: by the config's binding, or
	// switched to it by the owner.
	Chats []AgentChat
}

// AgentChat is a chat an agent answers.
type AgentChat struct {
	Chat     string
	Switched bool // by the owner (/agent, this page); else the config binds it
}

// AgentPlugin is a store plugin in an agent's focus that is not connected.
type AgentPlugin struct {
	Name    string
	Why     string // "is not installed", …
	Install bool   // installing connects it; else its sign-in does
}

// AgentEdit is an edit as the CLI's flags take it: "" keeps what the
// agent has, "-" clears a list (or the provider).
type AgentEdit struct {
	Description string
	Allow       string
	Block       string
	Provider    string
}

// agentsRoutes are the Agents tab's pages and forms.
var agentsRoutes = []tabRoute{
	{"GET /agents", (*Server).agentsList},
	{"POST /agents", (*Server).agentAdd},
	{"GET /agents/{name}", (*Server).agentPage},
	{"POST /agents/{name}", (*Server).agentEdit},
	{"POST /agents/{name}/remove", (*Server).agentRemove},
	{"POST /agents/{name}/chats", (*Server).agentChat},
}

// agentChat is the agent page's chat form: "switch" makes the agent
// answer the chat, "release" takes a switch back.
func (s *Server) agentChat(w http.ResponseWriter, r *http.Request) {
	if s.o.Agents == nil {
		s.unavailable(w, r, "Agents")
		return
	}
	name := r.PathValue("name")
	chat := strings.TrimSpace(r.PostFormValue("chat"))
	agent := name
	if r.PostFormValue("do") == "release" {
		agent = ""
	}
	said, err := s.o.Agents.SwitchChat(r.Context(), chat, agent)
	s.finish(w, r, string(pathTo("/agents", name)), said, err)
}

func (s *Server) agentsList(w http.ResponseWriter, r *http.Request) {
	if s.o.Agents == nil {
		s.unavailable(w, r, "Agents")
		return
	}
	list, err := s.o.Agents.Agents(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, "agents", "Agents", agentsContent(csrfFrom(r), list))
}

// agentAdd adds an agent and opens its page, with the focus it got.
func (s *Server) agentAdd(w http.ResponseWriter, r *http.Request) {
	if s.o.Agents == nil {
		s.unavailable(w, r, "Agents")
		return
	}
	name := strings.TrimSpace(r.PostFormValue("name"))
	said, err := s.o.Agents.AddAgent(r.Context(), name, strings.TrimSpace(r.PostFormValue("description")))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.done(w, r, "/agents/"+name, said)
}

func (s *Server) agentPage(w http.ResponseWriter, r *http.Request) {
	if s.o.Agents == nil {
		s.unavailable(w, r, "Agents")
		return
	}
	page, err := s.o.Agents.Agent(r.Context(), r.PathValue("name"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, "agent", "Agent "+page.Name, agentContent(csrfFrom(r), page))
}

// agentEdit saves the edit form. The form shows everything the agent
// has, so an emptied list (or "the installation's model") clears it.
func (s *Server) agentEdit(w http.ResponseWriter, r *http.Request) {
	if s.o.Agents == nil {
		s.unavailable(w, r, "Agents")
		return
	}
	orClear := func(field string) string {
		if v := strings.TrimSpace(r.PostFormValue(field)); v != "" {
			return v
		}
		return "-"
	}
	name := r.PathValue("name")
	said, err := s.o.Agents.EditAgent(r.Context(), name, AgentEdit{
		Description: strings.TrimSpace(r.PostFormValue("description")),
		Allow:       orClear("allow"),
		Block:       orClear("block"),
		Provider:    orClear("provider"),
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.done(w, r, "/agents/"+name, said)
}

func (s *Server) agentRemove(w http.ResponseWriter, r *http.Request) {
	if s.o.Agents == nil {
		s.unavailable(w, r, "Agents")
		return
	}
	said, err := s.o.Agents.RemoveAgent(r.Context(), r.PathValue("name"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.done(w, r, "/agents", said)
}
