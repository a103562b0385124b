package web

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// Schedule is what the Schedule tab reads and changes (SC1): the
// scheduled skills of the running scheduler, as `jarvisbot schedule`
// shows and changes them.
type Schedule interface {
	// List is every scheduled skill with its next and last run.
	List(ctx context.Context) (ScheduleList, error)
	// RunNow starts skill's run at once, as `schedule run` does, and
	// returns without waiting for it: List shows it running, then its
	// outcome. Its error says why it did not start.
	RunNow(ctx context.Context, skill string) error
	// SetPaused pauses or resumes skill as `schedule pause`/`resume` do,
	// and returns what they print.
	SetPaused(ctx context.Context, skill string, paused bool) (string, error)
}

// ScheduleList is the schedule as the page shows it.
type ScheduleList struct {
	// Running says the scheduler runs in this process: skills run at
	// their times and Run now works.
	Running bool
	// Zone names the owner's time zone, whose clock the times are on
	// (a skill with its own zone names it in its Zone).
	Zone    string
	Entries []ScheduleEntry
}

// ScheduleEntry is one scheduled skill.
type ScheduleEntry struct {
	Skill string
	Spec  string // the cron spec, e.g. "0 7 * * *"
	Zone  string // the skill's own time zone, "" for the owner's
	Next  time.Time
	// Paused: the skill does not run at its times until resumed.
	Paused bool
	// Running: a run started here (Run now) is going, which the page
	// follows. A run the clock started shows in Last as "running": a
	// run a crash cut short stays so, and is no reason to follow it.
	Running bool
	Last    *ScheduleRun // nil when it never ran
	// Err says what of its state could not be read: Last and Paused
	// are then unknown.
	Err string
}

// ScheduleRun is one run of a scheduled skill. Its outcome and its
// report's delivery are separate (SC1).
type ScheduleRun struct {
	Due, Started, Finished time.Time
	// Outcome is running, ok, failed, skipped, not-run (it could not
	// start) or interrupted (jarvisbot stopped during it); Error says why.
	Outcome, Error string
	Report         string
	Chat           string // where the report goes
	// Delivery is pending, sent, failed (it is retried) or none.
	Delivery, DeliveryError string
	Attempts                int
}

// Busy reports whether a run started here is going, which the page
// follows.
func (l ScheduleList) Busy() bool {
	for _, e := range l.Entries {
		if e.Running {
			return true
		}
	}
	return false
}

// timeText is a time on its own clock, as `schedule list` shows it.
func timeText(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.Format("Mon 2006-01-02 15:04")
}

// NextText is when the skill runs next.
func (e ScheduleEntry) NextText() string {
	switch {
	case e.Err != "":
		return "unknown"
	case e.Paused:
		return "paused"
	}
	return timeText(e.Next)
}

// DueText is when the run was due.
func (r ScheduleRun) DueText() string { return timeText(r.Due) }

// OutcomeText says what became of the run.
func (r ScheduleRun) OutcomeText() string {
	switch r.Outcome {
	case "ok":
		return "ran"
	case "running":
		return "running now"
	case "not-run":
		return "not run: " + r.Error
	case "":
		return "unknown"
	}
	if r.Error != "" {
		return r.Outcome + ": " + r.Error
	}
	return r.Outcome
}

// OutcomeClass colours the outcome: safe for a run that went well,
// monitor for one that did not happen, ask for a failure.
func (r ScheduleRun) OutcomeClass() string {
	switch r.Outcome {
	case "ok":
		return "tier-safe"
	case "failed":
		return "tier-ask"
	case "running":
		return ""
	}
	return "tier-monitor"
}

// DeliveryText says what became of the run's report.
func (r ScheduleRun) DeliveryText() string {
	switch r.Delivery {
	case "sent":
		return "delivered to " + r.Chat
	case "failed":
		return fmt.Sprintf("not delivered to %s (%d attempts: %s); retried", r.Chat, r.Attempts, r.DeliveryError)
	case "pending":
		return "pending"
	case "none", "":
		return "no report"
	}
	return r.Delivery
}

// DeliveryClass colours the delivery.
func (r ScheduleRun) DeliveryClass() string {
	switch r.Delivery {
	case "sent":
		return "tier-safe"
	case "failed":
		return "tier-ask"
	}
	return "muted"
}

// scheduleEntries is the block the page polls while a run is going.
const scheduleEntries = "schedule-entries"

// scheduleRoutes are the Schedule tab's pages and forms.
var scheduleRoutes = []tabRoute{
	{"GET /schedule", (*Server).schedulePage},
	{"POST /schedule/{skill}/run", (*Server).scheduleRun},
	{"POST /schedule/{skill}/pause", func(s *Server, w http.ResponseWriter, r *http.Request) { s.schedulePause(w, r, true) }},
	{"POST /schedule/{skill}/resume", func(s *Server, w http.ResponseWriter, r *http.Request) { s.schedulePause(w, r, false) }},
}

// schedulePage lists the scheduled skills: the whole page, or only the
// list when htmx polls it while a run is going.
func (s *Server) schedulePage(w http.ResponseWriter, r *http.Request) {
	if s.o.Schedule == nil {
		s.unavailable(w, r, "The schedule")
		return
	}
	list, err := s.o.Schedule.List(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if swapping(r, scheduleEntries) {
		s.renderBlock(w, r, scheduleEntriesBlock(csrfFrom(r), list))
		return
	}
	s.render(w, r, "schedule", "Schedule", scheduleContent(csrfFrom(r), list))
}

// scheduleRun starts a run and goes back to the list, which shows it
// running and then its outcome.
func (s *Server) scheduleRun(w http.ResponseWriter, r *http.Request) {
	if s.o.Schedule == nil {
		s.unavailable(w, r, "The schedule")
		return
	}
	skill := r.PathValue("skill")
	if err := s.o.Schedule.RunNow(r.Context(), skill); err != nil {
		s.fail(w, r, err)
		return
	}
	s.done(w, r, "/schedule", skill+" is running now: its outcome and its report's delivery show below when it ends.")
}

func (s *Server) schedulePause(w http.ResponseWriter, r *http.Request, pause bool) {
	if s.o.Schedule == nil {
		s.unavailable(w, r, "The schedule")
		return
	}
	note, err := s.o.Schedule.SetPaused(r.Context(), r.PathValue("skill"), pause)
	s.finish(w, r, "/schedule", note, err)
}
