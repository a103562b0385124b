package web

import (
	"context"
	"net/http"
	"strings"
)

// Route is what the Route tab reads (C7): what `jarvisbot route` says of
// a message, over the running session's catalog.
type Route interface {
	// Agents are the agents a turn can be explained for, and the one
	// explained when none is chosen.
	Agents(ctx context.Context) (names []string, def string, err error)
	// Explain explains agent's turn for msg without running it; agent ""
	// is the default one. Its error is worded as `route` words it.
	Explain(ctx context.Context, agent, msg string) (RouteAnswer, error)
}

// RouteAnswer is a turn explained, as `route` prints it.
type RouteAnswer struct {
	Message string
	Agent   string
	Focus   []string // the agent's focus
	Servers []RouteServer
	// OnRequest are the connected servers this turn did not offer whose
	// tools the model can still ask for (C8).
	OnRequest    []string
	Tools        []RouteTool // offered, in order
	SchemaTokens int
	Withheld     []RouteWithheld
	Skills       []RouteSkill // best first
}

// RouteServer is why one MCP server was or was not offered.
type RouteServer struct {
	Server  string
	Offered bool
	Tools   int
	Because string
}

// RouteTool is one tool the model gets.
type RouteTool struct {
	N  int // its place in the order, from 1
	ID string
	// Tier is the tier as `route` shows it, with per-action tiers
	// ("monitor; list, read: safe"); Class is safe, monitor or ask.
	Tier, Class string
	// PerTurn marks the first tool after the cached prefix: the MCP tools
	// this message brought start here.
	PerTurn bool
}

// RouteWithheld is what one reason withholds: the first few, and how
// many more.
type RouteWithheld struct {
	Reason string
	IDs    []string
	More   int
}

// RouteSkill is a matched skill and how it may enter the turn.
type RouteSkill struct {
	ID     string
	Plugin string // "" for a skill of no plugin
	Score  float64
	Entry  string
	Tie    string // how a tie with another manual of its kind went
	// Learned says which words learned from the owner's turns it matched.
	Learned string
}

// routeView is the Route page's data.
type routeView struct {
	Agents  []string
	Agent   string // chosen, or the default
	Message string
	Answer  *RouteAnswer
	Error   string
}

// routeResult is the block htmx swaps when the form is sent.
const routeResult = "route-result"

// routeRoutes are the Route tab's pages and forms.
var routeRoutes = []tabRoute{
	{"GET /route", (*Server).routePage},
}

// routePage shows the form and, for a message, its explanation: the
// whole page, or only the result block when htmx asks for it.
func (s *Server) routePage(w http.ResponseWriter, r *http.Request) {
	if s.o.Route == nil {
		s.unavailable(w, r, "Route")
		return
	}
	q := r.URL.Query()
	names, def, err := s.o.Route.Agents(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := routeView{Agents: names, Agent: q.Get("agent"), Message: q.Get("message")}
	if v.Agent == "" {
		v.Agent = def
	}
	if strings.TrimSpace(v.Message) != "" {
		ans, err := s.o.Route.Explain(r.Context(), v.Agent, v.Message)
		if err != nil {
			// Shown in place of the answer: the form stays to correct it.
			v.Error = err.Error()
		} else {
			v.Answer = &ans
		}
	}
	if swapping(r, routeResult) {
		s.renderBlock(w, r, routeResultBlock(v))
		return
	}
	s.render(w, r, "route", "Route", routeContent(v))
}

// swapping reports whether htmx asks for the block with id target alone
// (not a page it restores from its history).
func swapping(r *http.Request, target string) bool {
	return r.Header.Get("HX-Request") == "true" && r.Header.Get("HX-Target") == target &&
		r.Header.Get("HX-History-Restore-Request") != "true"
}
