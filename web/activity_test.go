package web

import (
	"bufio"
	"context"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// boardOver is the Activity tab over a real store's board.
type boardOver struct{ db *sqlstore.DB }

func rowsOf(es []store.ActivityEntry) []ActivityRow {
	out := make([]ActivityRow, 0, len(es))
	for _, e := range es {
		out = append(out, ActivityRow{ID: e.ID, At: e.At, Agent: e.Agent, App: e.App, Tool: e.Tool, Tier: e.Tier, Args: e.Args, Outcome: e.Outcome, Took: e.Duration})
	}
	return out
}

func (b boardOver) Board(ctx context.Context, f ActivityFilter, limit int) ([]ActivityRow, int64, error) {
	last, err := b.db.LastActivityID(ctx)
	if err != nil {
		return nil, 0, err
	}
	es, err := b.db.ActivityBoard(ctx, store.ActivityFilter(f), limit)
	return rowsOf(es), last, err
}

func (b boardOver) Since(ctx context.Context, f ActivityFilter, after int64) ([]ActivityRow, error) {
	es, err := b.db.ActivitySince(ctx, store.ActivityFilter(f), after, 100)
	return rowsOf(es), err
}

func openStore(t *testing.T) *sqlstore.DB {
	t.Helper()
	db, err := sqlstore.Open(context.Background(), filepath.Join(t.TempDir(), "board.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func record(t *testing.T, db *sqlstore.DB, agent, tool, outcome string) {
	t.Helper()
	if err := db.RecordActivity(context.Background(), store.Activity{Agent: agent, Tool: tool, Tier: "monitor", Args: `{"n":1}`, Outcome: outcome, Duration: 42 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
}

var rowRE = regexp.MustCompile(`<tr data-id="(\d+)" data-tool="([^"]*)" data-outcome="([^"]*)">`)

// toolsShown are the data-tool attributes of the board's rows, in order.
func toolsShown(body string) []string {
	var out []string
	for _, m := range rowRE.FindAllStringSubmatch(body, -1) {
		out = append(out, m[2])
	}
	return out
}

// TestActivityBoardNewestFirstFilteredC2: the board shows the entries
// newest first with time, agent, tool, outcome and time taken, as the CLI
// prints them; the filter form is applied on the server and carried to
// the live view, which goes on after the newest entry shown.
func TestActivityBoardNewestFirstFilteredC2(t *testing.T) {
	db := openStore(t)
	d := newDashboard(t, Options{Activity: boardOver{db}})
	sess := d.signIn(t)
	record(t, db, "default", "cli:echo", "ok")
	record(t, db, "coder", "mcp:github/merge", "error: the server is down")
	record(t, db, "coder", "cli:echo", "denied")

	body := d.page(t, "/activity", sess)
	if got := strings.Join(toolsShown(body), " "); got != "cli:echo mcp:github/merge cli:echo" {
		t.Errorf("rows %q, want newest first", got)
	}
	wantIn(t, "the board", body, `id="activity-filter"`, `name="agent"`, `name="tool"`, `name="outcome"`, `id="activity-rows"`,
		`hx-ext="sse"`, `sse-swap="row"`, `hx-swap="afterbegin"`, `data-outcome="error: the server is down"`, ">42ms<", "coder")
	if !strings.Contains(body, `sse-connect="/activity/stream?after=3"`) {
		t.Errorf("the live view does not go on after the newest entry:\n%s", body)
	}

	for _, tc := range []struct {
		query, want, stream string
	}{
		{"?agent=coder", "cli:echo mcp:github/merge", "after=3&amp;agent=coder"},
		{"?tool=cli:echo&outcome=ok", "cli:echo", "after=3&amp;outcome=ok&amp;tool=cli%3Aecho"},
		{"?outcome=error", "mcp:github/merge", "after=3&amp;outcome=error"},
		{"?agent=nobody", "", "after=3&amp;agent=nobody"},
	} {
		_, body := d.get(t, "/activity"+tc.query, sess)
		if got := strings.Join(toolsShown(body), " "); got != tc.want {
			t.Errorf("%s: rows %q, want %q", tc.query, got, tc.want)
		}
		if !strings.Contains(body, `sse-connect="/activity/stream?`+tc.stream+`"`) {
			t.Errorf("%s: the live view lost the filter:\n%s", tc.query, body)
		}
	}
	if _, body := d.get(t, "/activity?agent=nobody", sess); !strings.Contains(body, "Nothing on the board yet that matches") {
		t.Errorf("an empty filtered board says nothing:\n%s", body)
	}
}

// TestActivityBoardSaysForWhichAppX5: a call an app's job or chat asked
// for shows on the board with the app it served; the owner's own do not.
func TestActivityBoardSaysForWhichAppX5(t *testing.T) {
	db := openStore(t)
	d := newDashboard(t, Options{Activity: boardOver{db}})
	sess := d.signIn(t)
	for _, app := range []string{"ops", ""} {
		if err := db.RecordActivity(context.Background(), store.Activity{Agent: "default", App: app, Tool: "cli:echo", Tier: "ask", Outcome: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	_, body := d.get(t, "/activity", sess)
	if n := strings.Count(body, "<td>default for app ops</td>"); n != 1 {
		t.Errorf("%d rows say they served app ops, want 1:\n%s", n, body)
	}
	if n := strings.Count(body, "<td>default</td>"); n != 1 {
		t.Errorf("%d rows are the owner's own, want 1:\n%s", n, body)
	}
}

// sseEvent is one server-sent event.
type sseEvent struct {
	id, name, data string
}

// readEvents reads events from a stream into a channel until it ends.
func readEvents(body *bufio.Reader) <-chan sseEvent {
	ch := make(chan sseEvent, 16)
	go func() {
		defer close(ch)
		var ev sseEvent
		for {
			line, err := body.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\n")
			switch {
			case line == "":
				if ev.name != "" {
					ch <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				ev.id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data += strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	return ch
}

// openStream opens the live view and waits for its first comment, so
// that what is recorded next is new to it.
func openStream(t *testing.T, d *dashboard, ctx context.Context, sess *http.Cookie, query, lastID string) (<-chan sseEvent, *http.Response) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, d.srv.URL+"/activity/stream"+query, nil)
	req.AddCookie(sess)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %s %q", res.Status, res.Header.Get("Content-Type"))
	}
	r := bufio.NewReader(res.Body)
	if first, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(first, ":") {
		t.Fatalf("the stream did not open with a comment: %q, %v", first, err)
	}
	return readEvents(r), res
}

func nextRow(t *testing.T, events <-chan sseEvent) sseEvent {
	t.Helper()
	select {
	case ev, ok := <-events:
		if !ok {
			t.Fatal("the stream ended")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no row came within 10s")
	}
	return sseEvent{}
}

// TestActivityStreamSendsNewRowsLiveC2W1: the live view sends each new
// entry that passes its filter as a "row" event holding the table row,
// with the entry's id; a reconnecting browser's Last-Event-ID goes on
// after what it saw; the stream ends when the client goes away.
func TestActivityStreamSendsNewRowsLiveC2W1(t *testing.T) {
	db := openStore(t)
	d := newDashboard(t, Options{Activity: boardOver{db}})
	sess := d.signIn(t)
	record(t, db, "default", "cli:echo", "ok") // before the stream: not sent

	ctx, cancel := context.WithCancel(context.Background())
	events, res := openStream(t, d, ctx, sess, "?tool=cli:echo", "")
	record(t, db, "default", "mcp:github/merge", "ok") // filtered out
	record(t, db, "coder", "cli:echo", "denied")
	ev := nextRow(t, events)
	if ev.name != "row" || ev.id != "3" || !strings.Contains(ev.data, `data-tool="cli:echo" data-outcome="denied"`) || !strings.Contains(ev.data, "<td>coder</td>") {
		t.Fatalf("first event %+v", ev)
	}
	record(t, db, "default", "cli:echo", "ok")
	if ev := nextRow(t, events); ev.id != "4" {
		t.Fatalf("second event %+v", ev)
	}
	cancel()
	res.Body.Close()

	// A reconnect after id 3 gets 4 again and nothing older.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	events, res = openStream(t, d, ctx2, sess, "?after=0", "3")
	defer res.Body.Close()
	if ev := nextRow(t, events); ev.id != "4" {
		t.Fatalf("after reconnecting: %+v", ev)
	}
	cancel2()

	// Every stream ended with its client: the test server's Close waits
	// for the handlers still running.
	closed := make(chan struct{})
	go func() { d.srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("a stream outlived its client")
	}
}

// TestStreamsEndWhenTheServerStopsW1: a browser that keeps the board
// open does not hold serve's shutdown: StopStreams ends its stream.
func TestStreamsEndWhenTheServerStopsW1(t *testing.T) {
	db := openStore(t)
	d := newDashboard(t, Options{Activity: boardOver{db}})
	events, res := openStream(t, d, t.Context(), d.signIn(t), "", "")
	defer res.Body.Close()
	d.s.StopStreams()
	select {
	case _, open := <-events:
		if open {
			t.Fatal("the stream sent an event instead of ending")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream outlived StopStreams")
	}
}

// TestActivityStreamRefusesABadStartW1: a starting point that is no id
// is refused, not read as "everything".
func TestActivityStreamRefusesABadStartW1(t *testing.T) {
	d := newDashboard(t, Options{Activity: boardOver{openStore(t)}})
	sess := d.signIn(t)
	if res, _ := d.get(t, "/activity/stream?after=x", sess); res.StatusCode != http.StatusBadRequest {
		t.Errorf("after=x answered %s", res.Status)
	}
	if res, _ := d.get(t, "/activity/stream", nil); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("without a session the stream answered %s", res.Status)
	}
}
