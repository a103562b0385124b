package main

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
)

// tabBrowser is a browser signed in to the dashboard serve runs.
type tabBrowser struct {
	base string
	c    *http.Client
	csrf string
}

// serveSignedIn runs serve with the dashboard on and the owner signed in.
func serveSignedIn(t *testing.T, e *testEnv) (*tabBrowser, *syncBuffer, func()) {
	t.Helper()
	o := signedInDashboard(t, e)
	return &tabBrowser{base: o.base, c: &http.Client{Jar: o.jar, Timeout: 30 * time.Second}, csrf: o.csrf}, o.out, o.stop
}

// get fetches a page (following redirects) and keeps its CSRF token.
func (b *tabBrowser) get(t *testing.T, path string) string {
	t.Helper()
	res, err := b.c.Get(b.base + path)
	if err != nil {
		t.Fatal(err)
	}
	body := b.read(t, res)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s\n%s", path, res.Status, body)
	}
	return body
}

// post sends a form with the CSRF token the last page carried, follows
// the redirect and returns the status and page it ends on.
func (b *tabBrowser) post(t *testing.T, path string, form url.Values) (int, string) {
	t.Helper()
	if b.csrf != "" {
		form.Set("csrf", b.csrf)
	}
	res, err := b.c.PostForm(b.base+path, form)
	if err != nil {
		t.Fatal(err)
	}
	body := b.read(t, res)
	return res.StatusCode, body
}

func (b *tabBrowser) read(t *testing.T, res *http.Response) string {
	t.Helper()
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	body := string(raw)
	if m := csrfField.FindStringSubmatch(body); m != nil {
		b.csrf = html.UnescapeString(m[1])
	}
	return body
}

// scheduleRow is a skill's row on the Schedule page.
func scheduleRow(body, skill string) string {
	start := strings.Index(body, `data-skill="`+skill+`"`)
	if start < 0 {
		return ""
	}
	row := body[start:]
	if end := strings.Index(row, "</tr>"); end >= 0 {
		row = row[:end]
	}
	return row
}

// TestDashboardScheduleW1SC1: over HTTP, serve's dashboard lists the
// shipped morning brief with its next run on the owner's clock; Run now
// runs it through the running scheduler (the model's report reaches the
// owner's chat) and the page, like `schedule list`, then shows the run
// and its delivery; Pause and Resume change what `schedule list` says.
func TestDashboardScheduleW1SC1(t *testing.T) {
	e := newTestEnv(t)
	e.vars["JARVIS_TIMEZONE"] = "Europe/Berlin"
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	f := withModel(t, e)
	tg := withTelegram(t, e)
	e.vars["JARVIS_TELEGRAM_OWNERS"] = "42"
	b, out, stop := serveSignedIn(t, e)
	defer stop()

	now := e.clock.Now().In(berlin)
	next := time.Date(now.Year(), now.Month(), now.Day(), 7, 0, 0, 0, berlin)
	if !next.After(now) {
		next = next.AddDate(0, 0, 1)
	}
	page := b.get(t, "/schedule")
	row := scheduleRow(page, "morning-brief")
	for _, want := range []string{"0 7 * * *", next.Format("Mon 2006-01-02 15:04"), `data-paused="false"`, "never", `id="run-morning-brief"`, `id="pause-morning-brief"`} {
		if !strings.Contains(row, want) {
			t.Errorf("the morning brief's row lacks %q:\n%s", want, row)
		}
	}
	if !strings.Contains(page, "Europe/Berlin") || strings.Contains(page, `id="schedule-stopped"`) {
		t.Errorf("the page does not say the owner's zone, or says the scheduler is not running:\n%s", page)
	}

	f.Push(fakellm.Step{Text: "Brief for today: two calls, no deadlines."})
	code, page := b.post(t, "/schedule/morning-brief/run", url.Values{})
	if code != http.StatusOK || !strings.Contains(page, "morning-brief is running now") {
		t.Fatalf("Run now: %d\n%s", code, page)
	}
	waitSent(t, tg, "the report of the run started from the dashboard", func(s []faketelegram.Sent) bool {
		return hasText(s, 42, "Brief for today: two calls, no deadlines.")
	})
	waitFor(t, "the run and its delivery on the Schedule page", func() (bool, any) {
		row := scheduleRow(b.get(t, "/schedule"), "morning-brief")
		return strings.Contains(row, `data-outcome="ok"`) && strings.Contains(row, `data-delivery="sent"`) &&
			strings.Contains(row, "delivered to telegram:42") && strings.Contains(row, `data-running="false"`), row
	})
	if _, list, _ := e.jarvis(t, "", "schedule", "list"); !strings.Contains(list, "ok, report sent") {
		t.Errorf("schedule list does not show the run:\n%s", list)
	}
	if reqs := f.Requests(); len(reqs) != 1 || !strings.Contains(reqs[0].Messages[len(reqs[0].Messages)-1].Text, "morning-brief") {
		t.Errorf("the model got %d requests, want the morning brief's one\n%s", len(reqs), out.String())
	}

	for _, tc := range []struct{ action, note, button, listed string }{
		{"pause", "morning-brief is paused.", `id="resume-morning-brief"`, "paused"},
		{"resume", "morning-brief is resumed.", `id="pause-morning-brief"`, next.Local().Format("2006-01-02 15:04")},
	} {
		code, page := b.post(t, "/schedule/morning-brief/"+tc.action, url.Values{})
		if code != http.StatusOK || !strings.Contains(page, tc.note) || !strings.Contains(scheduleRow(page, "morning-brief"), tc.button) {
			t.Errorf("%s: %d\n%s", tc.action, code, page)
		}
		_, list, _ := e.jarvis(t, "", "schedule", "list")
		line := ""
		for _, l := range strings.Split(list, "\n") {
			if strings.HasPrefix(l, "morning-brief") {
				line = l
			}
		}
		if !strings.Contains(line, tc.listed) {
			t.Errorf("after %s from the dashboard, schedule list says:\n%s", tc.action, list)
		}
	}

	if code, page := b.post(t, "/schedule/morning-breif/pause", url.Values{}); code != http.StatusNotFound || !strings.Contains(page, "no scheduled skill named morning-breif") {
		t.Errorf("pausing a misspelt skill: %d\n%s", code, page)
	}
	if code, _ := (&tabBrowser{base: b.base, c: b.c}).post(t, "/schedule/morning-brief/run", url.Values{}); code != http.StatusForbidden {
		t.Errorf("Run now without the CSRF token answered %d", code)
	}
}

// TestDashboardRunNowEndsWithServeW1SC1: a run started from the dashboard
// goes on in the background (the page follows it; a second press starts
// no second run) and belongs to serve: stopping serve ends it, recorded
// as interrupted, before the store closes.
func TestDashboardRunNowEndsWithServeW1SC1(t *testing.T) {
	e, f, _ := ownerOnTelegram(t)
	e.vars["JARVIS_SHUTDOWN_TIMEOUT"] = "1s"
	b, _, stop := serveSignedIn(t, e)
	defer stop()
	held := make(chan struct{})
	defer close(held)
	f.Push(fakellm.Step{Text: "never sent", Release: held})

	b.get(t, "/schedule")
	if code, page := b.post(t, "/schedule/morning-brief/run", url.Values{}); code != http.StatusOK || !strings.Contains(scheduleRow(page, "morning-brief"), `data-running="true"`) || !strings.Contains(page, `hx-trigger="every 2s"`) {
		t.Fatalf("Run now: %d\n%s", code, page)
	}
	waitFor(t, "the run's model request", func() (bool, any) { n := len(f.Requests()); return n == 1, n })
	if code, page := b.post(t, "/schedule/morning-brief/run", url.Values{}); code != http.StatusConflict || !strings.Contains(page, "running already") {
		t.Errorf("a second press while it runs: %d\n%s", code, page)
	}
	stop()
	if n := len(f.Requests()); n != 1 {
		t.Errorf("the model got %d requests, want 1: a second run started", n)
	}
	if _, list, _ := e.jarvis(t, "", "schedule", "list"); !strings.Contains(list, "interrupted") {
		t.Errorf("the run stopped with serve is not recorded interrupted:\n%s", list)
	}
}
