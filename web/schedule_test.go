package web

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
)

// scheduleBook is a Schedule kept in memory: RunNow marks the skill
// running until the test ends the run with finish.
type scheduleBook struct {
	mu      sync.Mutex
	list    ScheduleList
	started []string
}

func (b *scheduleBook) List(context.Context) (ScheduleList, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.list
	out.Entries = append([]ScheduleEntry(nil), b.list.Entries...)
	return out, nil
}

func (b *scheduleBook) entry(skill string) (*ScheduleEntry, error) {
	for i := range b.list.Entries {
		if b.list.Entries[i].Skill == skill {
			return &b.list.Entries[i], nil
		}
	}
	return nil, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no scheduled skill named %s", skill)
}

func (b *scheduleBook) RunNow(_ context.Context, skill string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.list.Running {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the scheduler is not running in this process")
	}
	e, err := b.entry(skill)
	if err != nil {
		return err
	}
	e.Running = true
	b.started = append(b.started, skill)
	return nil
}

func (b *scheduleBook) runs() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.started...)
}

func (b *scheduleBook) finish(skill string, r ScheduleRun) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, _ := b.entry(skill)
	e.Running, e.Last = false, &r
}

func (b *scheduleBook) SetPaused(_ context.Context, skill string, paused bool) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, err := b.entry(skill)
	if err != nil {
		return "", err
	}
	e.Paused = paused
	if paused {
		return skill + " is paused.", nil
	}
	return skill + " is resumed.", nil
}

func berlin(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	return loc
}

// getHX asks for one block as htmx does.
func (d *dashboard) getHX(t *testing.T, path, target string, c *http.Cookie) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, d.srv.URL+path, nil)
	req.Header.Set("HX-Request", "true")
	req.Header.Set("HX-Target", target)
	req.AddCookie(c)
	return send(t, req)
}

// send sends req without following redirects and reads the answer.
func send(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	res, err := client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

func wantIn(t *testing.T, what, body string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(body, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, body)
		}
	}
}

func wantNotIn(t *testing.T, what, body string, nots ...string) {
	t.Helper()
	for _, w := range nots {
		if strings.Contains(body, w) {
			t.Errorf("%s has %q:\n%s", what, w, body)
		}
	}
}

// TestScheduleListsNextAndLastRunW1SC1: every scheduled skill with its
// cron spec and zone, its next run on the owner's clock, its last run's
// outcome and its report's delivery told apart, paused or not, with the
// buttons that change it.
func TestScheduleListsNextAndLastRunW1SC1(t *testing.T) {
	loc := berlin(t)
	due := time.Date(2026, 12, 3, 7, 0, 0, 0, loc)
	book := &scheduleBook{list: ScheduleList{Running: true, Zone: "Europe/Berlin", Entries: []ScheduleEntry{
		{Skill: "inbox-digest", Spec: "0 7 * * *", Next: due.Add(24 * time.Hour),
			Last: &ScheduleRun{Due: due, Outcome: "ok", Report: "Three letters waited.", Chat: "telegram:42", Delivery: "failed", DeliveryError: "chat unreachable", Attempts: 2}},
		{Skill: "plant-watering", Spec: "30 18 * * 1-5", Zone: "America/New_York", Next: due.Add(36 * time.Hour), Paused: true},
		{Skill: "weekly-review", Spec: "@weekly", Next: due.Add(72 * time.Hour),
			Last: &ScheduleRun{Due: due.Add(-time.Hour), Outcome: "not-run", Error: "no model is configured for agent default", Delivery: "none"}},
	}}}
	d := newDashboard(t, Options{Schedule: book})
	sess := d.signIn(t)
	body := d.page(t, "/schedule", sess)
	wantIn(t, "the schedule", body,
		"Europe/Berlin", "0 7 * * *", "Fri 2026-12-04 07:00", // next, on the owner's clock
		`data-outcome="ok"`, "Thu 2026-12-03 07:00", `data-delivery="failed"`, "not delivered to telegram:42 (2 attempts: chat unreachable); retried",
		"Three letters waited.",
		"30 18 * * 1-5", "America/New_York", `data-paused="true"`, `id="resume-plant-watering"`,
		`data-outcome="not-run"`, "not run: no model is configured for agent default", "no report",
		`id="run-inbox-digest"`, `id="pause-inbox-digest"`, `action="/schedule/inbox-digest/run"`,
		`name="csrf" value="`+csrfOf(sess.Value)+`"`)
	wantNotIn(t, "the schedule", body, `id="pause-plant-watering"`, `id="schedule-stopped"`, `hx-trigger`)
}

// TestScheduleSaysWhenNotRunningW1SC1: without a scheduler in this
// process the page says so and offers no Run now; without a backend the
// tab says it is not available.
func TestScheduleSaysWhenNotRunningW1SC1(t *testing.T) {
	book := &scheduleBook{list: ScheduleList{Zone: "UTC", Entries: []ScheduleEntry{{Skill: "inbox-digest", Spec: "0 7 * * *"}}}}
	d := newDashboard(t, Options{Schedule: book})
	sess := d.signIn(t)
	_, body := d.get(t, "/schedule", sess)
	wantIn(t, "a stopped schedule", body, `id="schedule-stopped"`, "not running in this process", `id="pause-inbox-digest"`)
	wantNotIn(t, "a stopped schedule", body, `id="run-inbox-digest"`)
	res := d.post(t, "/schedule/inbox-digest/run", url.Values{"csrf": {csrfOf(sess.Value)}}, sess, "")
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("Run now without a scheduler answered %s", res.Status)
	}

	none := newDashboard(t, Options{})
	if res, body := none.get(t, "/schedule", none.signIn(t)); res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "not available") {
		t.Errorf("no backend: %s\n%s", res.Status, body)
	}
}

// TestScheduleRunNowInTheBackgroundW1SC1: Run now needs the CSRF token,
// starts the run and comes straight back with a note; the page shows it
// running and polls only then; when it ends, the polled block shows its
// outcome and stops polling. An unknown skill is refused as the CLI
// words it.
func TestScheduleRunNowInTheBackgroundW1SC1(t *testing.T) {
	due := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	book := &scheduleBook{list: ScheduleList{Running: true, Zone: "UTC", Entries: []ScheduleEntry{{Skill: "inbox-digest", Spec: "0 7 * * *", Next: due.Add(22 * time.Hour)}}}}
	d := newDashboard(t, Options{Schedule: book})
	sess := d.signIn(t)
	if res := d.post(t, "/schedule/inbox-digest/run", url.Values{}, sess, ""); res.StatusCode != http.StatusForbidden || len(book.runs()) != 0 {
		t.Fatalf("Run now without the CSRF token: %s, started %v", res.Status, book.runs())
	}
	res := d.post(t, "/schedule/inbox-digest/run", url.Values{"csrf": {csrfOf(sess.Value)}}, sess, "")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/schedule" {
		t.Fatalf("Run now: %s to %q", res.Status, res.Header.Get("Location"))
	}
	if got := book.runs(); len(got) != 1 {
		t.Fatalf("started %v", got)
	}
	note := cookieOf(res, flashCookie)
	if note == nil || !strings.Contains(decodeNote(note.Value), "inbox-digest is running now") {
		t.Errorf("note %+v", note)
	}
	_, body := d.get(t, "/schedule", sess)
	wantIn(t, "a run going", body, `data-running="true"`, "running now", `hx-get="/schedule"`, `hx-trigger="every 2s"`, `id="run-inbox-digest" class="primary" disabled`)

	book.finish("inbox-digest", ScheduleRun{Due: due, Outcome: "failed", Error: "the model timed out", Chat: "telegram:42", Delivery: "sent", Attempts: 1})
	res, block := d.getHX(t, "/schedule", scheduleEntries, sess)
	if res.StatusCode != http.StatusOK || strings.Contains(block, "<html") || !strings.HasPrefix(strings.TrimSpace(block), `<div id="schedule-entries"`) {
		t.Fatalf("the polled block: %s\n%s", res.Status, block)
	}
	wantIn(t, "the ended run", block, `data-outcome="failed"`, "failed: the model timed out", "delivered to telegram:42", `data-running="false"`)
	wantNotIn(t, "the ended run", block, "hx-trigger")

	res = d.post(t, "/schedule/inbox-digets/run", url.Values{"csrf": {csrfOf(sess.Value)}}, sess, "")
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown skill answered %s", res.Status)
	}
}

// TestSchedulePauseAndResumeW1SC1: Pause and Resume change the switch
// and come back with what the CLI prints; the page then offers the other
// button.
func TestSchedulePauseAndResumeW1SC1(t *testing.T) {
	book := &scheduleBook{list: ScheduleList{Running: true, Zone: "UTC", Entries: []ScheduleEntry{{Skill: "inbox-digest", Spec: "0 7 * * *"}}}}
	d := newDashboard(t, Options{Schedule: book})
	sess := d.signIn(t)
	for _, tc := range []struct {
		action, note, button string
		paused               bool
	}{
		{"pause", "inbox-digest is paused.", `id="resume-inbox-digest"`, true},
		{"resume", "inbox-digest is resumed.", `id="pause-inbox-digest"`, false},
	} {
		res := d.post(t, "/schedule/inbox-digest/"+tc.action, url.Values{"csrf": {csrfOf(sess.Value)}}, sess, "")
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s: %s", tc.action, res.Status)
		}
		req, _ := http.NewRequest(http.MethodGet, d.srv.URL+"/schedule", nil)
		req.AddCookie(sess)
		for _, c := range res.Cookies() {
			req.AddCookie(c)
		}
		_, body := send(t, req)
		wantIn(t, "after "+tc.action, body, tc.note, tc.button)
		if got, _ := book.List(context.Background()); got.Entries[0].Paused != tc.paused {
			t.Errorf("after %s paused = %v", tc.action, got.Entries[0].Paused)
		}
	}
	if res := d.post(t, "/schedule/nothing-here/pause", url.Values{"csrf": {csrfOf(sess.Value)}}, sess, ""); res.StatusCode != http.StatusNotFound {
		t.Errorf("pausing an unknown skill answered %s", res.Status)
	}
}
