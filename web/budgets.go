package web

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// Budgets is what the Agents tab's budget form reads and changes (A5):
// the daily and monthly limits of the whole installation and of each
// agent, the config's and the owner's over them, with what was spent.
type Budgets interface {
	Budgets(ctx context.Context) ([]BudgetRow, error)
	// SetBudget sets the owner's limit of agent ("" for the whole
	// installation) for period ("day" or "month"): "" takes it away (the
	// config's counts again), "none" lifts the limit, else "$5" or "2M
	// tokens". It says what counts now.
	SetBudget(ctx context.Context, agent, period, limit string) (string, error)
}

// BudgetRow is one limit as the form shows it.
type BudgetRow struct {
	Agent  string // "" for the whole installation
	Period string // "day" or "month"
	Config string // the config's limit, "no limit" for none
	Owner  string // the owner's limit over it, "" for none set
	Limit  string // what counts now
	Raised bool   // the owner raised it for this period with a button
	Spent  string // what the period spent against it, "" without a limit
	Resets time.Time
}

// Whose names the limit's scope.
func (r BudgetRow) Whose() string {
	if r.Agent == "" {
		return "the whole installation"
	}
	return "agent " + r.Agent
}

// PeriodWord is "daily" or "monthly".
func (r BudgetRow) PeriodWord() string {
	if r.Period == "month" {
		return "monthly"
	}
	return "daily"
}

// ID names the row for tests and links: "budget--day" for the whole
// installation's daily limit.
func (r BudgetRow) ID() string { return "budget-" + r.Agent + "-" + r.Period }

// budgetsRoutes are the Budgets tab's pages and forms.
var budgetsRoutes = []tabRoute{
	{"GET /budgets", (*Server).budgetsPage},
	{"POST /budgets", (*Server).budgetSet},
}

func (s *Server) budgetsPage(w http.ResponseWriter, r *http.Request) {
	if s.o.Budgets == nil {
		s.unavailable(w, r, "Budgets")
		return
	}
	rows, err := s.o.Budgets.Budgets(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, "agents-budgets", "Budgets", budgetsContent(csrfFrom(r), rows))
}

// budgetSet saves one limit of the form.
func (s *Server) budgetSet(w http.ResponseWriter, r *http.Request) {
	if s.o.Budgets == nil {
		s.unavailable(w, r, "Budgets")
		return
	}
	note, err := s.o.Budgets.SetBudget(r.Context(), strings.TrimSpace(r.PostFormValue("agent")), r.PostFormValue("period"), r.PostFormValue("limit"))
	s.finish(w, r, "/budgets", note, err)
}
