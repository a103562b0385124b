// Package web is the dashboard (W1): server-rendered pages for the
// overview it opens on (W2), plugins, skills, MCP servers, agents,
// approvals, the activity board, the schedule and route, served by
// `serve` on loopback by default. Every page reads and writes through the
// packages the CLI uses, handed in as the small interfaces below; the
// package itself keeps no state. Sign-in is by one-time link (auth.go).
// Serve (serve.go) puts it over a running session on serve's listener,
// with the operator's probes beside it.
//
// Each page is a templ component (PAGE.templ, compiled by the pinned templ
// generator into the committed PAGE_templ.go): plain Go that escapes by
// context, where html/template's reflection on method names would keep
// every exported method of the binary from the linker's dead-code
// elimination.
//
// The pages work without JavaScript: every change is a form that posts
// and is redirected back. A vendored htmx (static/, its licence kept)
// swaps parts of a page where it is loaded, and the activity board
// follows new rows over server-sent events.
package web

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/a-h/templ"

	"github.com/jarvisbot/jarvisbot"
)

//go:embed static
var staticFS embed.FS

// Options are what the dashboard reads and writes through. A nil page
// backend leaves its tab saying it is not available in this process.
type Options struct {
	Logins Logins
	// Now is the clock for links and sessions; time.Now when nil.
	Now    func() time.Time
	Logger *slog.Logger
	// Secure marks the session cookie Secure: set it when the dashboard
	// is served over TLS (directly, or by a proxy that terminates TLS).
	Secure  bool
	Version string
	// Hosts are the Host headers the dashboard answers (host:port as the
	// browser sends it); empty answers any. A page asked for by another
	// name is a DNS-rebinding attempt or a wrong proxy setting.
	Hosts []string

	Overview  Overview
	Plugins   Plugins
	Skills    Skills
	MCPs      MCPs
	Agents    Agents
	Approvals Approvals
	Activity  Activity
	// Said is the Activity tab's search of everything said (A6).
	Said     Said
	Schedule Schedule
	Route    Route
	Pause    Pause
	// Budgets is the Agents tab's budget form (budgets.go).
	Budgets Budgets
	Chats   Chats
}

// Server is the dashboard's HTTP handler.
type Server struct {
	o   Options
	mux *http.ServeMux
	// stop ends the live streams when the server shuts down, which does
	// not itself end requests in flight.
	stop     chan struct{}
	stopOnce sync.Once
}

// StopStreams ends the live streams (the activity board's), so a shutdown
// does not wait on a browser that keeps one open. Register it with the
// http.Server's RegisterOnShutdown.
func (s *Server) StopStreams() { s.stopOnce.Do(func() { close(s.stop) }) }

// tabs are the dashboard's sections, in the order the navigation shows.
var tabs = []struct{ Name, Path, Title string }{
	{"overview", "/", "Overview"}, // the page the dashboard opens on
	{"plugins", "/plugins", "Plugins"},
	{"skills", "/skills", "Skills"},
	{"mcps", "/mcps", "MCPs"},
	{"agents", "/agents", "Agents"},
	{"approvals", "/approvals", "Approvals"},
	{"activity", "/activity", "Activity"},
	{"chats", "/chats", "Chats"},
	{"schedule", "/schedule", "Schedule"},
	{"route", "/route", "Route"},
}

// New returns the dashboard over o.
func New(o Options) (*Server, error) {
	if o.Logins == nil {
		return nil, errors.New("web: Options.Logins is required: no one could sign in")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{o: o, mux: http.NewServeMux(), stop: make(chan struct{})}
	static, err := fs.Sub(staticFS, "static")
	if err != nil {
		return nil, fmt.Errorf("web: the embedded static files: %w", err)
	}
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", staticHandler(static)))
	s.mux.HandleFunc("GET /login", s.loginForm)
	s.mux.HandleFunc("POST /login", s.login)
	s.mux.HandleFunc("POST /logout", s.logout)
	for _, tab := range [...][]tabRoute{overviewRoutes, pluginsRoutes, skillsRoutes, mcpsRoutes, agentsRoutes, approvalsRoutes,
		activityRoutes, scheduleRoutes, routeRoutes, pauseRoutes, budgetsRoutes, chatsRoutes} {
		for _, rt := range tab {
			s.mux.HandleFunc(rt.pattern, func(w http.ResponseWriter, r *http.Request) { rt.handle(s, w, r) })
		}
	}
	return s, nil
}

// A tabRoute is one page or form of a tab. Each tab's file lists its routes
// as data, which New registers here: registering them with code in each
// file made every start run a little of each file, and the kernel maps
// the program in 64 KiB blocks around what runs, so the dashboard cost
// ~0.3 MiB of resident pages before anyone opened it.
type tabRoute struct {
	pattern string
	handle  func(*Server, http.ResponseWriter, *http.Request)
}

// Handler serves the dashboard: signed-in requests only, except the
// sign-in page and the static files; every change carries the session's
// CSRF token.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		// Nothing but our own files runs, nothing frames the dashboard,
		// and no page address (a sign-in link) leaks to another site.
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		if !strings.HasPrefix(r.URL.Path, "/static/") {
			h.Set("Cache-Control", "no-store")
		}
		if len(s.o.Hosts) > 0 && !slices.Contains(s.o.Hosts, strings.ToLower(r.Host)) {
			http.Error(w, "This dashboard does not answer to the name "+r.Host+": open it at "+s.o.Hosts[0]+" (or set web.url to the address your proxy serves).", http.StatusMisdirectedRequest)
			return
		}
		// No form of the dashboard is large (a SKILL.md upload is the
		// largest); a body past this bound is refused as it is read.
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		if public(r) {
			s.mux.ServeHTTP(w, r)
			return
		}
		sess, ok := s.session(r)
		if !ok {
			s.signInFirst(w, r)
			return
		}

		if !safeMethod(r.Method) && !s.sameOrigin(r, sess) {
			s.refuse(w, r, http.StatusForbidden, "This form has no valid CSRF token (it may be from an old page, or from another site): reload the page and try again.")
			return
		}
		s.mux.ServeHTTP(w, r.WithContext(withSession(r.Context(), sess)))
	})
}

// maxBody bounds a request's body.
const maxBody = 4 << 20

// public are the paths served without a session.
func public(r *http.Request) bool {
	return r.URL.Path == "/login" || strings.HasPrefix(r.URL.Path, "/static/")
}

func safeMethod(m string) bool { return m == http.MethodGet || m == http.MethodHead }

// staticHandler serves the embedded files, cacheable: their names carry
// their versions. A directory is not found: a listing would only tell a
// stranger what the dashboard ships, and no page links to one.
func staticHandler(files fs.FS) http.Handler {
	fsrv := http.FileServerFS(files)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimSuffix(r.URL.Path, "/")
		if name == "" {
			name = "."
		}
		if st, err := fs.Stat(files, name); err != nil || st.IsDir() {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=86400")
		fsrv.ServeHTTP(w, r)
	})
}

// view is what the layout shows around a page's content.
type view struct {
	Tab     string
	Title   string
	CSRF    string
	Flash   string
	Version string
	Pause   pauseView
}

// tabOf is the tab a page belongs to: its own name, or the tab named for
// its plural (an agent's page is under Agents).
func tabOf(page string) string {
	for _, t := range tabs {
		if t.Name == page || t.Name == page+"s" {
			return t.Name
		}
	}
	if p, _, ok := strings.Cut(page, "-"); ok { // plugin-progress
		return tabOf(p)
	}
	return page
}

// render writes a page: the layout, under the tab page belongs to,
// around content.
func (s *Server) render(w http.ResponseWriter, r *http.Request, page, title string, content templ.Component) {
	s.execute(w, r, page, title, content, http.StatusOK)
}

// renderBlock writes one part of a page alone, for htmx to swap in.
func (s *Server) renderBlock(w http.ResponseWriter, r *http.Request, block templ.Component) {
	s.write(w, r, block, http.StatusOK)
}

// execute writes a whole page with a status.
func (s *Server) execute(w http.ResponseWriter, r *http.Request, page, title string, content templ.Component, status int) {
	v := view{Tab: tabOf(page), Title: title, Version: s.o.Version, CSRF: csrfFrom(r)}
	if v.CSRF != "" {
		v.Pause = s.pauseOf(r)
	}
	// Only a whole page shows the note; a block htmx polls for must not
	// take it before the page after a change shows it.
	v.Flash = s.takeFlash(w, r)
	s.write(w, r, layout(v, content), status)
}

// write renders c in full before anything is sent, so that a failure
// is an error page, not half a page.
func (s *Server) write(w http.ResponseWriter, r *http.Request, c templ.Component, status int) {
	var b bytes.Buffer
	if err := c.Render(r.Context(), &b); err != nil {
		s.o.Logger.Error("dashboard: rendering a page", "path", r.URL.Path, "err", err)
		http.Error(w, "the page could not be rendered; the log says why", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes()) // the client went away: nothing to tell it
}

// The helpers below are what the pages (*.templ) compute in Go.

// pageTitle is the document's title.
func pageTitle(title string) string {
	if title == "" {
		return "jarvisbot"
	}
	return title + " · jarvisbot"
}

// when is a time as the pages show it: local, to the minute.
func when(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.Local().Format("2006-01-02 15:04")
}

// ifThen is s when cond holds, else "".
func ifThen(cond bool, s string) string {
	if cond {
		return s
	}
	return ""
}

// ifElse is a when cond holds, else b.
func ifElse(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}

// pathTo is the dashboard's own address of the thing named name under
// base ("/agents"), with any further segments: name is escaped as a
// path segment, the rest are ours.
func pathTo(base, name string, more ...string) templ.SafeURL {
	p := base + "/" + url.PathEscape(name)
	for _, m := range more {
		p += "/" + m
	}
	return templ.SafeURL(p)
}

// done ends a change: back to the page at to, with a note the next page
// shows once. Without JavaScript this is the form's redirect; htmx
// follows it the same way.
func (s *Server) done(w http.ResponseWriter, r *http.Request, to, note string) {
	s.setFlash(w, r, note)
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// finish ends a change a backend made: failed, as fail shows it; done,
// back to the page at to with the backend's note.
func (s *Server) finish(w http.ResponseWriter, r *http.Request, to, note string, err error) {
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.done(w, r, to, note)
}

// fail shows an error as the CLI words it, with the status its code
// maps to.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	status := http.StatusInternalServerError
	switch jarvisbot.ErrorCode(err) {
	case jarvisbot.EINVALID:
		status = http.StatusBadRequest
	case jarvisbot.ENOTFOUND:
		status = http.StatusNotFound
	case jarvisbot.ECONFLICT:
		status = http.StatusConflict
	case jarvisbot.EFORBIDDEN:
		status = http.StatusForbidden
	case jarvisbot.EUNAVAILABLE:
		status = http.StatusServiceUnavailable
	}
	if status == http.StatusInternalServerError {
		s.o.Logger.Error("dashboard", "path", r.URL.Path, "err", err)
	}
	s.refuse(w, r, status, err.Error())
}

// refuse shows a message on the error page with a status.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	s.execute(w, r, "error", "Error", errorPage(msg), status)
}

// unavailable answers for a tab whose backend this process lacks.
func (s *Server) unavailable(w http.ResponseWriter, r *http.Request, what string) {
	s.refuse(w, r, http.StatusServiceUnavailable, what+" is not available in this process.")
}

const flashCookie = "jarvisbot_note"

func (s *Server) setFlash(w http.ResponseWriter, r *http.Request, note string) {
	if note == "" {
		return
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: encodeNote(note), Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: s.secure(r), MaxAge: 60})
}

// takeFlash reads the note a change left and clears it.
func (s *Server) takeFlash(w http.ResponseWriter, r *http.Request) string {
	c, err := r.Cookie(flashCookie)
	if err != nil {
		return ""
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: s.secure(r)})
	return decodeNote(c.Value)
}
