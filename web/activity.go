package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot/app"
)

// Activity is what the Activity tab reads: the activity board (C2), as
// `jarvisbot activity` prints it, filtered, and followed as it grows.
type Activity interface {
	// Board returns at most limit entries that pass f, newest first, and
	// the id of the board's newest entry (filtered or not) when it was
	// read: the live view goes on from there.
	Board(ctx context.Context, f ActivityFilter, limit int) (rows []ActivityRow, last int64, err error)
	// Since returns the entries that pass f recorded after the entry with
	// id after, oldest first.
	Since(ctx context.Context, f ActivityFilter, after int64) ([]ActivityRow, error)
}

// Said is what the Activity tab's search box reads: everything said in
// every chat and the wiki, searched as `jarvisbot memory search` does.
type Said interface {
	// SearchSaid returns at most limit hits for the words of query, best
	// first.
	SearchSaid(ctx context.Context, query string, limit int) ([]SaidHit, error)
}

// SaidHit is one thing said that matched.
type SaidHit struct {
	At      time.Time
	Chat    string // the chat, or "wiki NAME" for a note
	Who     string // owner, agent, tool or wiki
	Snippet string
}

// Time is when it was said, as the CLI prints it.
func (h SaidHit) Time() string { return h.At.Local().Format("2006-01-02 15:04") }

// saidLimit is how many hits the search box shows.
const saidLimit = 20

// ActivityFilter narrows the board; empty fields match everything. Tool
// may end in "*" for every id that starts so; Outcome matches an outcome
// or its kind ("error" for "error: …").
type ActivityFilter struct {
	Agent, Tool, Outcome string
}

// ActivityRow is one entry of the board.
type ActivityRow struct {
	ID    int64
	At    time.Time
	Agent string
	// App is the app whose job or chat the call served, "" for the
	// owner's own turns.
	App     string
	Tool    string
	Tier    string
	Args    string
	Outcome string
	Took    time.Duration
}

// Who is the agent, with the app it worked for when an app's job or chat
// asked for the call: the board never shows an app's work as the owner's.
func (r ActivityRow) Who() string { return app.ActivityWho(r.Agent, r.App) }

// Time is when the call was made, as `jarvisbot activity` prints it.
func (r ActivityRow) Time() string { return r.At.Local().Format("2006-01-02 15:04:05") }

// TookMS is how long the call took, in milliseconds, as the CLI prints it.
func (r ActivityRow) TookMS() int64 { return r.Took.Milliseconds() }

// boardLimit is how many entries the page shows.
const boardLimit = 100

// How often the live view asks for new entries, and how often it sends
// a comment so that proxies keep a quiet stream open.
const (
	streamPoll      = time.Second
	streamHeartbeat = 15 * time.Second
)

// activityPage is the Activity page's data.
type activityPage struct {
	Filter   ActivityFilter
	Filtered bool
	Rows     []ActivityRow
	Stream   string // the live view's address, with the filter and where to go on from
	// Searchable says the search box is on; Query is what it was asked,
	// Hits what it found.
	Searchable bool
	Query      string
	Hits       []SaidHit
}

// activityRoutes are the Activity tab's pages and forms.
var activityRoutes = []tabRoute{
	{"GET /activity", (*Server).activityBoard},
	{"GET /activity/stream", (*Server).activityStream},
}

// filterOf reads the filter form's fields.
func filterOf(r *http.Request) ActivityFilter {
	q := r.URL.Query()
	return ActivityFilter{
		Agent:   strings.TrimSpace(q.Get("agent")),
		Tool:    strings.TrimSpace(q.Get("tool")),
		Outcome: strings.TrimSpace(q.Get("outcome")),
	}
}

func (f ActivityFilter) values() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"agent": f.Agent, "tool": f.Tool, "outcome": f.Outcome} {
		if s != "" {
			v.Set(k, s)
		}
	}
	return v
}

// activityBoard shows the board, newest first, filtered on the server.
func (s *Server) activityBoard(w http.ResponseWriter, r *http.Request) {
	if s.o.Activity == nil {
		s.unavailable(w, r, "The activity board")
		return
	}
	f := filterOf(r)
	rows, last, err := s.o.Activity.Board(r.Context(), f, boardLimit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	// An entry recorded between the two reads is shown already: go on
	// after it, so it does not come twice.
	for _, row := range rows {
		last = max(last, row.ID)
	}
	page := activityPage{Filter: f, Filtered: f != ActivityFilter{}, Rows: rows, Searchable: s.o.Said != nil,
		Query: strings.TrimSpace(r.URL.Query().Get("q"))}
	if page.Searchable && page.Query != "" {
		if page.Hits, err = s.o.Said.SearchSaid(r.Context(), page.Query, saidLimit); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	v := f.values()
	v.Set("after", strconv.FormatInt(last, 10))
	page.Stream = "/activity/stream?" + v.Encode()
	s.render(w, r, "activity", "Activity", activityContent(page))
}

// activityStream sends the board's new entries as server-sent events
// ("row", the table row as HTML, with the entry's id), with the same
// filter as the page, until the client goes away. It goes on after the
// Last-Event-ID a reconnecting browser sends, else after ?after=, else
// from now.
func (s *Server) activityStream(w http.ResponseWriter, r *http.Request) {
	if s.o.Activity == nil {
		s.unavailable(w, r, "The activity board")
		return
	}
	ctx := r.Context()
	f := filterOf(r)
	after, err := streamStart(r)
	if err != nil {
		s.refuse(w, r, http.StatusBadRequest, err.Error())
		return
	}
	if after < 0 {
		if _, after, err = s.o.Activity.Board(ctx, f, 1); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no") // a proxy must pass each event on at once
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	send := func(b []byte) bool {
		if _, err := w.Write(b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !send([]byte(": the activity board, live\nretry: 3000\n\n")) {
		return
	}
	poll := time.NewTicker(streamPoll)
	defer poll.Stop()
	beat := time.NewTicker(streamHeartbeat)
	defer beat.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.stop:
			return
		case <-beat.C:
			if !send([]byte(": keep-alive\n\n")) {
				return
			}
		case <-poll.C:
			rows, err := s.o.Activity.Since(ctx, f, after)
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				// The store may be back at the next tick; the page keeps
				// what it shows.
				s.o.Logger.Warn("dashboard: following the activity board", "err", err)
				continue
			}
			if len(rows) == 0 {
				continue
			}
			var b strings.Builder
			for _, row := range rows {
				if err := s.rowEvent(ctx, &b, row); err != nil {
					s.o.Logger.Error("dashboard: rendering an activity row", "err", err)
					return
				}
				after = row.ID
			}
			if !send([]byte(b.String())) {
				return
			}
		}
	}
}

// streamStart is the id the stream goes on after; -1 for "from now".
func streamStart(r *http.Request) (int64, error) {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		v = r.URL.Query().Get("after")
	}
	if v == "" {
		return -1, nil
	}
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil || id < 0 {
		return 0, fmt.Errorf("the stream's starting point %q is not an entry id: open /activity again", v)
	}
	return id, nil
}

// rowEvent writes one entry as an event: its table row, one data line
// per line of HTML.
func (s *Server) rowEvent(ctx context.Context, b *strings.Builder, row ActivityRow) error {
	var html strings.Builder
	if err := activityRow(row).Render(ctx, &html); err != nil {
		return err
	}
	fmt.Fprintf(b, "id: %d\nevent: row\n", row.ID)
	for line := range strings.Lines(strings.TrimSpace(html.String())) {
		fmt.Fprintf(b, "data: %s\n", strings.TrimRight(line, "\r\n"))
	}
	b.WriteString("\n")
	return nil
}
