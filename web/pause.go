package web

import (
	"context"
	"net/http"
	"strings"
)

// Pause is the switch every page shows in its header (X5): whether every
// agent is paused and by whom (the owner, or an app's pause_all), so the
// owner sees an app's pause and lifts it in one press, or pauses.
type Pause interface {
	Paused(ctx context.Context) (paused bool, by string, err error)
	// SetPaused pauses (as the owner) or resumes and says what it did.
	SetPaused(ctx context.Context, pause bool) (note string, err error)
}

// pauseView is the header's switch.
type pauseView struct {
	Shown  bool // a Pause is wired and its state was read
	Paused bool
	By     string
	Back   string // the page to come back to
}

// pauseRoutes are the forms that pause and resume every agent.
var pauseRoutes = []tabRoute{
	{"POST /pause", func(s *Server, w http.ResponseWriter, r *http.Request) { s.switchPause(w, r, true) }},
	{"POST /resume", func(s *Server, w http.ResponseWriter, r *http.Request) { s.switchPause(w, r, false) }},
}

// pauseOf reads the switch for a page; a state that cannot be read hides
// it (the page itself still shows) and is logged.
func (s *Server) pauseOf(r *http.Request) pauseView {
	if s.o.Pause == nil {
		return pauseView{}
	}
	paused, by, err := s.o.Pause.Paused(r.Context())
	if err != nil {
		s.o.Logger.Warn("dashboard: reading whether jarvisbot is paused", "err", err)
		return pauseView{}
	}
	back := r.URL.RequestURI()
	if !safeMethod(r.Method) { // an error page after a form: its address takes no GET
		back = "/"
	}
	return pauseView{Shown: true, Paused: paused, By: by, Back: back}
}

func (s *Server) switchPause(w http.ResponseWriter, r *http.Request, pause bool) {
	if s.o.Pause == nil {
		s.unavailable(w, r, "Pausing")
		return
	}
	note, err := s.o.Pause.SetPaused(r.Context(), pause)
	s.finish(w, r, localPath(r.PostFormValue("back")), note, err)
}

// localPath is back when it is a path on this dashboard, else "/": a
// form's field never sends the browser to another site.
func localPath(back string) string {
	if !strings.HasPrefix(back, "/") || strings.HasPrefix(back, "//") || strings.ContainsAny(back, "\\\r\n") {
		return "/"
	}
	return back
}
