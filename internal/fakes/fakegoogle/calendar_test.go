package fakegoogle_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakegoogle"
	"github.com/jarvisbot/jarvisbot/internal/fakes/restapi"
)

// calendarCall sends one request with a bearer token and returns the status and
// the decoded JSON body (nil when there is none).
func calendarCall(t *testing.T, method, url, body string) (int, map[string]any) {
	t.Helper()
	return restapi.CallJSON(t, method, url, "t", body)
}

// TestCalendarFakeRefusesWhatGoogleRefuses: invalid requests get Google's
// status and error body, so clients meet the failures they meet in
// production.
func TestCalendarFakeRefusesWhatGoogleRefuses(t *testing.T) {
	s := fakegoogle.New(t)
	start := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	s.AddEvent("primary", fakegoogle.CalendarEvent{ID: "e1", Summary: "x", Start: start, End: start.Add(time.Hour)})
	events := s.URL + "/calendar/v3/calendars/primary/events"
	for _, tc := range []struct {
		name, method, url, body string
		status                  int
		reason                  string
	}{
		{"order without single events", "GET", events + "?orderBy=startTime", "", 400, "badRequest"},
		{"bad page token", "GET", events + "?pageToken=zzz", "", 400, "badRequest"},
		{"bad timeMin", "GET", events + "?timeMin=2026-05-04", "", 400, "badRequest"},
		{"empty range", "GET", events + "?timeMin=2026-05-04T10:00:00Z&timeMax=2026-05-04T09:00:00Z", "", 400, "badRequest"},
		{"unknown calendar", "GET", s.URL + "/calendar/v3/calendars/nobody%40example.com/events", "", 404, "notFound"},
		{"unknown event", "GET", events + "/nope", "", 404, "notFound"},
		{"end before start", "POST", events, `{"summary":"y","start":{"dateTime":"2026-05-04T10:00:00Z"},"end":{"dateTime":"2026-05-04T09:00:00Z"}}`, 400, "badRequest"},
		{"no end", "POST", events, `{"summary":"y","start":{"dateTime":"2026-05-04T10:00:00Z"}}`, 400, "badRequest"},
		{"bad sendUpdates", "POST", events + "?sendUpdates=everyone", `{"start":{"date":"2026-05-04"},"end":{"date":"2026-05-05"}}`, 400, "badRequest"},
		{"bad attendee", "PATCH", events + "/e1", `{"attendees":[{"email":"nobody"}]}`, 400, "badRequest"},
	} {
		status, body := calendarCall(t, tc.method, tc.url, tc.body)
		e, _ := body["error"].(map[string]any)
		errs, _ := e["errors"].([]any)
		reason := ""
		if len(errs) == 1 {
			reason, _ = errs[0].(map[string]any)["reason"].(string)
		}
		if status != tc.status || reason != tc.reason || e["message"] == "" {
			t.Errorf("%s: %d %v, want %d with reason %s", tc.name, status, body, tc.status, tc.reason)
		}
	}
	if evs := s.Events("primary"); len(evs) != 1 || evs[0].Summary != "x" {
		t.Errorf("events %+v after refused requests, want the seeded one unchanged", evs)
	}
}

// TestCalendarFakeWrites: a patch changes the fields sent, an update
// replaces the event, a second delete answers 410, and each write records
// whom Google was told to notify.
func TestCalendarFakeWrites(t *testing.T) {
	s := fakegoogle.New(t)
	events := s.URL + "/calendar/v3/calendars/primary/events"
	status, ev := calendarCall(t, "POST", events+"?sendUpdates=none",
		`{"summary":"Plan","description":"agenda","start":{"dateTime":"2026-05-04T10:00:00","timeZone":"Europe/Berlin"},"end":{"dateTime":"2026-05-04T11:00:00+02:00"}}`)
	id, _ := ev["id"].(string)
	if status != 200 || id == "" || ev["kind"] != "calendar#event" {
		t.Fatalf("insert: %d %v", status, ev)
	}
	if got := s.Events("primary")[0]; !got.Start.Equal(time.Date(2026, 5, 4, 8, 0, 0, 0, time.UTC)) {
		t.Errorf("a dateTime without offset was not read in its timeZone: %s", got.Start)
	}

	if status, ev = calendarCall(t, "PATCH", events+"/"+id+"?sendUpdates=all", `{"location":"Room 1","attendees":[{"email":"ann@example.com"}]}`); status != 200 {
		t.Fatalf("patch: %d %v", status, ev)
	}
	got := s.Events("primary")[0]
	if got.Summary != "Plan" || got.Description != "agenda" || got.Location != "Room 1" ||
		len(got.Attendees) != 1 || got.Attendees[0].ResponseStatus != "needsAction" {
		t.Errorf("after patch: %+v", got)
	}

	if status, ev = calendarCall(t, "PUT", events+"/"+id, `{"summary":"New","start":{"date":"2026-05-06"},"end":{"date":"2026-05-07"}}`); status != 200 {
		t.Fatalf("update: %d %v", status, ev)
	}
	got = s.Events("primary")[0]
	if got.Summary != "New" || got.Description != "" || got.Location != "" || !got.AllDay || len(got.Attendees) != 0 {
		t.Errorf("after update: %+v", got)
	}
	if start, _ := ev["start"].(map[string]any); start["date"] != "2026-05-06" {
		t.Errorf("update answered start %v, want date 2026-05-06", ev["start"])
	}

	if status, _ = calendarCall(t, "DELETE", events+"/"+id+"?sendUpdates=all", ""); status != 204 {
		t.Errorf("delete: %d", status)
	}
	if status, _ = calendarCall(t, "DELETE", events+"/"+id, ""); status != 410 {
		t.Errorf("second delete: %d, want 410", status)
	}
	var sent []string
	for _, w := range s.CalendarWrites() {
		sent = append(sent, w.Method+"="+w.SendUpdates)
	}
	if want := "POST=none PATCH=all PUT= DELETE=all"; strings.Join(sent, " ") != want {
		t.Errorf("writes %v, want %s", sent, want)
	}
}

// TestCalendarFakeFreeBusy: busy periods are the opaque events within the
// range, clipped to it; an unknown calendar carries a notFound error.
func TestCalendarFakeFreeBusy(t *testing.T) {
	s := fakegoogle.New(t)
	day := time.Date(2026, 5, 4, 0, 0, 0, 0, time.UTC)
	s.AddEvent("primary", fakegoogle.CalendarEvent{Summary: "early", Start: day.Add(-time.Hour), End: day.Add(time.Hour)})
	s.AddEvent("primary", fakegoogle.CalendarEvent{Summary: "free", Start: day.Add(3 * time.Hour), End: day.Add(4 * time.Hour), Transparent: true})
	status, body := calendarCall(t, "POST", s.URL+"/calendar/v3/freeBusy",
		`{"timeMin":"2026-05-04T00:00:00Z","timeMax":"2026-05-05T00:00:00Z","items":[{"id":"primary"},{"id":"nobody@example.com"}]}`)
	if status != 200 {
		t.Fatalf("freeBusy: %d %v", status, body)
	}
	cals, _ := body["calendars"].(map[string]any)
	b, _ := json.Marshal(cals)
	want := `{"nobody@example.com":{"busy":[],"errors":[{"domain":"global","reason":"notFound"}]},"primary":{"busy":[{"end":"2026-05-04T01:00:00Z","start":"2026-05-04T00:00:00Z"}]}}`
	if string(b) != want {
		t.Errorf("calendars %s\nwant %s", b, want)
	}
}
