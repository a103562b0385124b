package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Approvals is what the Approvals tab reads and changes: the pending
// ask-tier requests, decided through the same engine as the chat
// buttons, and the standing "always" grants (C2, CH2); ApprovalsTab is
// the running service's.
type Approvals interface {
	// Pending lists the requests that wait for a decision, oldest first.
	Pending(ctx context.Context) ([]Approval, error)
	// Decide decides a request once, as the signed-in owner. A request
	// decided already (in a chat, by an app, by its expiry) is no error:
	// the answer says so (Already) and how it was decided.
	Decide(ctx context.Context, id string, d Decision) (Decided, error)
	// Request returns one request, pending or decided, with its
	// arguments whole: the chat's message shows what matters of them and
	// links here (CH2). ENOTFOUND when there is none.
	Request(ctx context.Context, id string) (Decided, error)
	// Grants lists the tools approved "always", which run without asking.
	Grants(ctx context.Context) ([]string, error)
	// Revoke withdraws a grant and returns what `approvals revoke` says.
	Revoke(ctx context.Context, tool string) (string, error)
}

// Decision is the owner's answer to a request: the chat's three buttons.
type Decision string

const (
	Approve Decision = "approve"
	Deny    Decision = "deny"
	Always  Decision = "always" // approve, and this tool runs without asking from now on
)

// Approval is a pending request as the chat shows it.
type Approval struct {
	ID      string
	Agent   string
	Tool    string
	Summary string // what will happen, with the arguments that matter, on several lines
	// Args are the call's arguments whole, as indented JSON; only Request
	// fills them.
	Args    string
	Chat    string
	Asked   time.Time
	Expires time.Time
}

// Decided is a request after a decision.
type Decided struct {
	Approval
	State  string // approved, denied or expired
	Always bool
	By     string
	At     time.Time
	// Already is true when the request was decided before this decision,
	// which changed nothing.
	Already bool
}

// approvalsPage is the Approvals page's data.
type approvalsPage struct {
	Pending []Approval
	Grants  []string
}

// approvalsRoutes are the Approvals tab's pages and forms.
var approvalsRoutes = []tabRoute{
	{"GET /approvals", (*Server).approvalsPage},
	{"GET /approvals/list", (*Server).approvalsPage}, // the polled block alone
	{"GET /approvals/{id}", (*Server).requestPage},
	{"POST /approvals/{id}", (*Server).decide},
	{"POST /approvals/grants/revoke", (*Server).revokeGrant},
}

// approvalsPage shows the pending requests and the grants; /approvals/list
// is the same list alone, which the page polls for.
func (s *Server) approvalsPage(w http.ResponseWriter, r *http.Request) {
	if s.o.Approvals == nil {
		s.unavailable(w, r, "Approvals")
		return
	}
	pending, err := s.o.Approvals.Pending(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	grants, err := s.o.Approvals.Grants(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	data := approvalsPage{Pending: pending, Grants: grants}
	if r.URL.Path == "/approvals/list" {
		s.renderBlock(w, r, approvalsList(csrfFrom(r), data))
		return
	}
	s.render(w, r, "approvals", "Approvals", approvalsContent(csrfFrom(r), data))
}

// requestPage shows one request with its arguments whole, where the
// chat's message links to: what the message cut short is one tap away.
// A pending request has the buttons too.
func (s *Server) requestPage(w http.ResponseWriter, r *http.Request) {
	if s.o.Approvals == nil {
		s.unavailable(w, r, "Approvals")
		return
	}
	d, err := s.o.Approvals.Request(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, "approvals", "Approval request", requestContent(csrfFrom(r), d))
}

// decide takes a press of Approve, Deny or Always. The engine decides
// once: a request the chat (or its expiry) decided first is a note, not
// an error.
func (s *Server) decide(w http.ResponseWriter, r *http.Request) {
	if s.o.Approvals == nil {
		s.unavailable(w, r, "Approvals")
		return
	}
	d := Decision(r.PostFormValue("decision"))
	if d != Approve && d != Deny && d != Always {
		s.refuse(w, r, http.StatusBadRequest, fmt.Sprintf("%q is no decision: press Approve, Deny or Always for this tool.", d))
		return
	}
	got, err := s.o.Approvals.Decide(r.Context(), r.PathValue("id"), d)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.done(w, r, "/approvals", decidedNote(got))
}

// decidedNote says what a decision did, or how the request was decided
// before it.
func decidedNote(d Decided) string {
	what := fmt.Sprintf("%s (%s, agent %s)", d.Summary, d.Tool, d.Agent)
	if d.Already {
		switch {
		case d.State == "expired":
			return fmt.Sprintf("Already decided: nobody answered by %s, so it expired and was denied. %s", d.Expires.Local().Format("15:04"), what)
		case d.Always:
			return fmt.Sprintf("Already decided: approved, always for this tool, by %s at %s. %s", d.By, d.At.Local().Format("15:04:05"), what)
		}
		return fmt.Sprintf("Already decided: %s by %s at %s. %s", d.State, d.By, d.At.Local().Format("15:04:05"), what)
	}
	switch {
	case d.State == "approved" && d.Always:
		return fmt.Sprintf("Approved, always for this tool: %s. %s now runs without asking, until you revoke it below.", what, d.Tool)
	case d.State == "approved":
		return "Approved: " + what
	}
	return capitalized(d.State) + ": " + what
}

// decidedLine says how a request was decided, on its page.
func decidedLine(d Decided) string {
	line := capitalized(d.State)
	if d.Always {
		line += ", always for this tool"
	}
	if d.By != "" {
		line += " by " + d.By
	}
	if !d.At.IsZero() {
		line += " at " + when(d.At)
	}
	return line
}

func capitalized(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// revokeGrant withdraws "always for this tool".
func (s *Server) revokeGrant(w http.ResponseWriter, r *http.Request) {
	if s.o.Approvals == nil {
		s.unavailable(w, r, "Approvals")
		return
	}
	tool := strings.TrimSpace(r.PostFormValue("tool"))
	if tool == "" {
		s.refuse(w, r, http.StatusBadRequest, "Name the tool whose grant to revoke.")
		return
	}
	said, err := s.o.Approvals.Revoke(r.Context(), tool)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.done(w, r, "/approvals", said)
}
