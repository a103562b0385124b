package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
)

// MCPs is what the MCPs tab reads and changes (M1, C5): the app's MCP
// use cases over the running service, whose host says which servers
// answer (MCPsTab). A change returns the words of its note, the ones
// `jarvisbot mcp` prints.
type MCPs interface {
	List(ctx context.Context) ([]MCPRow, error)
	// Show is one server: how it is reached, its tools with their tiers,
	// and its usage card.
	Show(ctx context.Context, name string) (MCPDetail, error)
	// Add checks that the server answers and lists its tools, as `mcp
	// add` does, and switches it on.
	Add(ctx context.Context, in MCPAdd) (string, error)
	Switch(ctx context.Context, name string, on bool) (string, error)
	Remove(ctx context.Context, name string) (string, error)
	// SaveCard keeps the owner's usage card for a server; no words takes
	// the owner's card back, leaving the derived one.
	SaveCard(ctx context.Context, name string, words []string) (string, error)
	// Forget removes a word the gate learned for a server, or all of them
	// for word "", as `mcp forget` does.
	Forget(ctx context.Context, name, word string) (string, error)
}

// MCPRow is one server in the list.
type MCPRow struct {
	Name      string
	Transport string
	Target    string // its command line or URL, secrets redacted
	On        bool
	// Answer is what the running host says of it: "up", "starting",
	// "down: why"; "" when it is off.
	Answer  string
	Up      bool
	Tools   int
	Problem string // why it cannot run as stored
}

// MCPDetail is one server's page.
type MCPDetail struct {
	MCPRow
	// Settings are `mcp show`'s words on how it is reached.
	Settings string
	Tools    []MCPTool
	// ToolsNote says why no tools are listed, when none are.
	ToolsNote string
	// Card is the usage card in force; CardFrom says where it comes from.
	Card     []string
	CardFrom string
	// Owned says the card shown is the owner's own (saved here).
	Owned bool
	// Locked names the config file whose card replaces any other; the
	// card is edited there.
	Locked string
	// Words are what route matches for the server, with why (C5, C7).
	Words []MCPWord
	// Learned are the words the gate learned for it from the owner's
	// turns (C9), the most taught first.
	Learned []MCPLearned
}

// MCPLearned is a word learned for a server or skill, as the owner wrote
// it.
type MCPLearned struct {
	Word string
	// Note says how many turns taught it, when and in which chat the last
	// was, and how often its offers went unused since (app.LearnedNote).
	Note string
}

// MCPTool is one tool with its tier.
type MCPTool struct {
	ID, Tier, Description string
}

// MCPWord is one entry of a server's vocabulary.
type MCPWord struct {
	Word, Kind, Source string
	Weight             int
}

// MCPAdd is the add form as typed: a command line or a URL, and the
// settings `mcp add` takes as flags.
type MCPAdd struct {
	Name    string
	Command string // the command line of a local (stdio) server
	URL     string
	Env     string // NAME=VALUE lines (VALUE may be ${SECRET})
	Headers string // "Name: value" lines
	Timeout string // e.g. 30s; "" for the default
	Trusted bool
	SSE     bool
}

// mcpsRoutes are the MCPs tab's pages and forms.
var mcpsRoutes = []tabRoute{
	{"GET /mcps", (*Server).mcpsPage},
	{"POST /mcps", (*Server).mcpAdd},
	{"GET /mcps/{name}", (*Server).mcpPage},
	{"POST /mcps/{name}/switch", (*Server).mcpSwitch},
	{"POST /mcps/{name}/remove", (*Server).mcpRemove},
	{"POST /mcps/{name}/card", (*Server).mcpCard},
	{"POST /mcps/{name}/forget", (*Server).mcpForget},
}

// mcpForget removes one learned word of a server (the form's word), or
// all of them when the form names none.
func (s *Server) mcpForget(w http.ResponseWriter, r *http.Request) {
	if s.o.MCPs == nil {
		s.unavailable(w, r, "The MCPs tab")
		return
	}
	name := r.PathValue("name")
	note, err := s.o.MCPs.Forget(r.Context(), name, strings.TrimSpace(r.PostFormValue("word")))
	s.finish(w, r, "/mcps/"+url.PathEscape(name), note, err)
}

type mcpsView struct {
	Rows []mcpRowView
}

// mcpRowView is a server with what its forms need.
type mcpRowView struct {
	MCPRow
	CSRF string
	Back string // the page a switch returns to
}

// mcpView is a server's page: its detail, its switch, and its card as
// the textarea edits it.
type mcpView struct {
	MCPDetail
	Row      mcpRowView
	CardText string
}

// mcpAnswer is what a server's answer column says.
func mcpAnswer(m MCPRow) string {
	if !m.On {
		return "off"
	}
	return m.Answer
}

// mcpAnswerClass colours it: safe when it answers, ask when it is on but
// does not.
func mcpAnswerClass(m MCPRow) string {
	switch {
	case m.Up:
		return "tier-safe"
	case m.On:
		return "tier-ask"
	}
	return "muted"
}

func (s *Server) mcpsPage(w http.ResponseWriter, r *http.Request) {
	if s.o.MCPs == nil {
		s.unavailable(w, r, "The MCPs tab")
		return
	}
	rows, err := s.o.MCPs.List(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := mcpsView{}
	for _, row := range rows {
		v.Rows = append(v.Rows, mcpRowView{row, csrfFrom(r), "/mcps"})
	}
	s.render(w, r, "mcps", "MCP servers", mcpsContent(csrfFrom(r), v))
}

func (s *Server) mcpAdd(w http.ResponseWriter, r *http.Request) {
	if s.o.MCPs == nil {
		s.unavailable(w, r, "The MCPs tab")
		return
	}
	in := MCPAdd{
		Name: strings.TrimSpace(r.PostFormValue("name")), Command: strings.TrimSpace(r.PostFormValue("command")),
		URL: strings.TrimSpace(r.PostFormValue("url")), Env: r.PostFormValue("env"), Headers: r.PostFormValue("headers"),
		Timeout: strings.TrimSpace(r.PostFormValue("timeout")), Trusted: r.PostFormValue("trusted") != "", SSE: r.PostFormValue("sse") != "",
	}
	note, err := s.o.MCPs.Add(r.Context(), in)
	s.finish(w, r, "/mcps/"+url.PathEscape(in.Name), note, err)
}

func (s *Server) mcpPage(w http.ResponseWriter, r *http.Request) {
	if s.o.MCPs == nil {
		s.unavailable(w, r, "The MCPs tab")
		return
	}
	d, err := s.o.MCPs.Show(r.Context(), r.PathValue("name"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, "mcp", "MCP server "+d.Name, mcpContent(csrfFrom(r),
		mcpView{d, mcpRowView{d.MCPRow, csrfFrom(r), "/mcps/" + url.PathEscape(d.Name)}, strings.Join(d.Card, "\n")}))
}

func (s *Server) mcpSwitch(w http.ResponseWriter, r *http.Request) {
	if s.o.MCPs == nil {
		s.unavailable(w, r, "The MCPs tab")
		return
	}
	note, err := s.o.MCPs.Switch(r.Context(), r.PathValue("name"), r.PostFormValue("on") == "true")
	s.finish(w, r, back(r, "/mcps"), note, err)
}

func (s *Server) mcpRemove(w http.ResponseWriter, r *http.Request) {
	if s.o.MCPs == nil {
		s.unavailable(w, r, "The MCPs tab")
		return
	}
	note, err := s.o.MCPs.Remove(r.Context(), r.PathValue("name"))
	s.finish(w, r, "/mcps", note, err)
}

// mcpCard saves the owner's usage card: one word or phrase a line (or
// separated by commas).
func (s *Server) mcpCard(w http.ResponseWriter, r *http.Request) {
	if s.o.MCPs == nil {
		s.unavailable(w, r, "The MCPs tab")
		return
	}
	var words []string
	for _, line := range strings.FieldsFunc(r.PostFormValue("card"), func(c rune) bool { return c == '\n' || c == ',' }) {
		if w := strings.TrimSpace(line); w != "" {
			words = append(words, w)
		}
	}
	name := r.PathValue("name")
	note, err := s.o.MCPs.SaveCard(r.Context(), name, words)
	s.finish(w, r, "/mcps/"+url.PathEscape(name), note, err)
}

// back is where a change returns: the page it was made on when the form
// says so (one of the dashboard's own paths), else def.
func back(r *http.Request, def string) string {
	if to := r.PostFormValue("back"); strings.HasPrefix(to, "/mcps") && !strings.HasPrefix(to, "//") {
		return to
	}
	return def
}
