package google_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // Europe/Berlin on machines without a zone database

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakegoogle"
	"github.com/jarvisbot/jarvisbot/internal/retry"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/google"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/native"
)

// calFixture is the calendar tools against a fake Google, for an owner in
// Berlin on Thursday 2026-03-26 09:30 (CET, three days before the switch
// to summer time, so the default week crosses it).
type calFixture struct {
	srv    *fakegoogle.Server
	tools  map[string]native.Tool
	berlin *time.Location
	now    time.Time
}

func newCalFixture(t *testing.T, opts ...fakegoogle.Option) *calFixture {
	t.Helper()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	f := &calFixture{srv: fakegoogle.New(t, opts...), berlin: berlin, now: time.Date(2026, 3, 26, 9, 30, 0, 0, berlin)}
	// The stack the plugin runs on: the sign-in's bearer token over the
	// retrying transport (waits of a millisecond where Google gives none).
	client := google.SignedIn(&retry.Transport{Policy: retry.Policy{Min: time.Millisecond, Max: time.Millisecond}})
	tools := google.CalendarTools(google.Options{
		HTTPClient: client,
		Endpoint:   f.srv.URL,
		Location:   berlin,
		Now:        func() time.Time { return f.now },
	})
	f.tools = map[string]native.Tool{}
	for _, tl := range tools {
		f.tools[tl.Name] = tl
	}
	return f
}

func (f *calFixture) run(t *testing.T, tool, args string) (string, error) {
	t.Helper()
	tl, ok := f.tools[tool]
	if !ok {
		t.Fatalf("no tool %s", tool)
	}
	return tl.Run(context.Background(), json.RawMessage(args))
}

func (f *calFixture) mustRun(t *testing.T, tool, args string) string {
	t.Helper()
	out, err := f.run(t, tool, args)
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	return out
}

// at is a time on a day of March or April 2026 in Berlin.
func (f *calFixture) at(month time.Month, day, hour, minute int) time.Time {
	return time.Date(2026, month, day, hour, minute, 0, 0, f.berlin)
}

func wantAll(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

func wantNone(t *testing.T, out string, nots ...string) {
	t.Helper()
	for _, w := range nots {
		if strings.Contains(out, w) {
			t.Errorf("output has %q:\n%s", w, out)
		}
	}
}

// TestListEventsInOwnerZone_P6: events stored in UTC are shown in the
// owner's zone (across the switch to summer time), all-day events as such,
// with place, attendee count, id and an unanswered invitation; the default
// range runs from now to the end of the 7th day.
func TestListEventsInOwnerZone_P6(t *testing.T) {
	f := newCalFixture(t)
	utc := func(month time.Month, day, hour, minute int) time.Time {
		return time.Date(2026, month, day, hour, minute, 0, 0, time.UTC)
	}
	f.srv.AddEvent("primary", fakegoogle.CalendarEvent{ID: "past", Summary: "Breakfast", Start: utc(3, 26, 7, 0), End: utc(3, 26, 8, 0)})
	f.srv.AddEvent("primary", fakegoogle.CalendarEvent{
		ID: "standup", Summary: "Team standup", Location: "Room 4",
		Start: utc(3, 26, 13, 0), End: utc(3, 26, 13, 15),
		Attendees: []fakegoogle.CalendarAttendee{
			{Email: fakegoogle.CalendarOwner, Self: true, ResponseStatus: "needsAction"},
			{Email: "lead@example.com", Organizer: true, ResponseStatus: "accepted"},
			{Email: "dev@example.com", ResponseStatus: "accepted"},
		},
		Organizer: "lead@example.com",
	})
	f.srv.AddEvent("primary", fakegoogle.CalendarEvent{ID: "trip", Summary: "Trip", AllDay: true, Start: f.at(3, 27, 0, 0), End: f.at(3, 29, 0, 0)})
	// Monday after the clocks went forward: 08:00 UTC is 10:00 in Berlin.
	f.srv.AddEvent("primary", fakegoogle.CalendarEvent{ID: "dentist", Summary: "Dentist", Start: utc(3, 30, 8, 0), End: utc(3, 30, 9, 0)})
	f.srv.AddEvent("primary", fakegoogle.CalendarEvent{ID: "late", Summary: "Late call", Start: f.at(4, 1, 23, 0), End: f.at(4, 2, 0, 30)})
	f.srv.AddEvent("primary", fakegoogle.CalendarEvent{ID: "beyond", Summary: "Next week", Start: f.at(4, 2, 8, 0), End: f.at(4, 2, 9, 0)})

	out := f.mustRun(t, "list_events", `{}`)
	wantAll(t, out,
		"Events from Thu 2026-03-26 09:30 to Thu 2026-04-02 00:00 (Europe/Berlin):",
		"1. Thu 2026-03-26 14:00–14:15 · Team standup · at Room 4 · 3 attendees · invitation not answered yet (from lead@example.com) · id standup",
		"2. Fri 2026-03-27 – Sat 2026-03-28, all day · Trip · id trip",
		"3. Mon 2026-03-30 10:00–11:00 · Dentist · id dentist",
		"4. Wed 2026-04-01 23:00 – Thu 2026-04-02 00:30 · Late call · id late",
	)
	wantNone(t, out, "Breakfast", "Next week", "More events")

	// A date range covers whole days; a query searches.
	out = f.mustRun(t, "list_events", `{"from":"2026-04-02","to":"2026-04-02"}`)
	wantAll(t, out, "Late call", "Next week")
	wantNone(t, out, "Dentist")
	out = f.mustRun(t, "list_events", `{"query":"DENTIST","to":"2026-04-30"}`)
	wantAll(t, out, `Events matching "DENTIST"`, "1. Mon 2026-03-30 10:00–11:00 · Dentist")
	wantNone(t, out, "standup", "2.")
	// Another of the owner's calendars, by its id (escaped in the path).
	f.srv.AddEvent("family@group.calendar.google.com", fakegoogle.CalendarEvent{ID: "school", Summary: "School play", Start: f.at(3, 27, 17, 0), End: f.at(3, 27, 18, 0)})
	out = f.mustRun(t, "list_events", `{"calendar_id":"family@group.calendar.google.com"}`)
	wantAll(t, out, "1. Fri 2026-03-27 17:00–18:00 · School play · id school")
	wantNone(t, out, "Dentist", "2.")
	out = f.mustRun(t, "list_events", `{"query":"nothing like it"}`)
	wantAll(t, out, `No events matching "nothing like it" from Thu 2026-03-26 09:30`)
}

// TestListEventsFollowsPages_P6: when Google answers short pages the tool
// follows nextPageToken up to its limit, and says when more follow.
func TestListEventsFollowsPages_P6(t *testing.T) {
	f := newCalFixture(t)
	f.srv.CalendarPageSize(3)
	for i := range 8 {
		f.srv.AddEvent("primary", fakegoogle.CalendarEvent{
			Summary: "Meeting " + string(rune('A'+i)),
			Start:   f.at(3, 27, 8+i, 0), End: f.at(3, 27, 8+i, 30),
		})
	}
	lists := func() int {
		n := 0
		for _, r := range f.srv.Requests() {
			if r == "GET /calendar/v3/calendars/primary/events" {
				n++
			}
		}
		return n
	}

	out := f.mustRun(t, "list_events", `{"limit":7}`)
	wantAll(t, out, "1. Fri 2026-03-27 08:00–08:30 · Meeting A", "7. Fri 2026-03-27 14:00–14:30 · Meeting G", "More events follow")
	wantNone(t, out, "Meeting H")
	if n := lists(); n != 3 {
		t.Errorf("%d list requests for 7 events in pages of 3, want 3", n)
	}

	out = f.mustRun(t, "list_events", `{"limit":50}`)
	wantAll(t, out, "8. Fri 2026-03-27 15:00–15:30 · Meeting H")
	wantNone(t, out, "More events")

	out = f.mustRun(t, "list_events", `{}`)
	wantAll(t, out, "8. Fri 2026-03-27 15:00–15:30 · Meeting H")
}

// TestFreeBusyListsBusyAndFreeSlots_P6: busy periods merge, events shown
// as free or declined do not count, and the free slots are the gaps of at
// least min_minutes within the day's hours, in the owner's zone.
func TestFreeBusyListsBusyAndFreeSlots_P6(t *testing.T) {
	f := newCalFixture(t)
	add := func(ev fakegoogle.CalendarEvent) { f.srv.AddEvent("primary", ev) }
	add(fakegoogle.CalendarEvent{Summary: "a", Start: f.at(3, 27, 10, 0), End: f.at(3, 27, 11, 0)})
	add(fakegoogle.CalendarEvent{Summary: "b", Start: f.at(3, 27, 10, 30), End: f.at(3, 27, 12, 0)})
	add(fakegoogle.CalendarEvent{Summary: "c", Start: f.at(3, 27, 14, 0), End: f.at(3, 27, 14, 15)})
	add(fakegoogle.CalendarEvent{Summary: "free", Start: f.at(3, 27, 16, 0), End: f.at(3, 27, 17, 0), Transparent: true})
	add(fakegoogle.CalendarEvent{Summary: "no", Start: f.at(3, 27, 8, 0), End: f.at(3, 27, 9, 0),
		Attendees: []fakegoogle.CalendarAttendee{{Email: fakegoogle.CalendarOwner, Self: true, ResponseStatus: "declined"}}})

	out := f.mustRun(t, "free_busy", `{"from":"2026-03-27","to":"2026-03-27"}`)
	wantAll(t, out,
		"From Fri 2026-03-27 00:00 to Sat 2026-03-28 00:00 (Europe/Berlin):",
		"Busy:\n1. Fri 2026-03-27 10:00–12:00 (2 h)\n2. Fri 2026-03-27 14:00–14:15 (15 min)\n",
		"Free slots of 30 min or more between 08:00 and 18:00:\n1. Fri 2026-03-27 08:00–10:00 (2 h)\n2. Fri 2026-03-27 12:00–14:00 (2 h)\n3. Fri 2026-03-27 14:15–18:00 (3 h 45 min)",
	)

	out = f.mustRun(t, "free_busy", `{"from":"2026-03-27","to":"2026-03-27","min_minutes":150,"day_start":"09:00","day_end":"17:30"}`)
	wantAll(t, out, "Free slots of 2 h 30 min or more between 09:00 and 17:30:\n1. Fri 2026-03-27 14:15–17:30 (3 h 15 min)")
	wantNone(t, out, "12:00–14:00 (2 h)\n")

	// Default range: from now, so today's slots start at 09:30.
	out = f.mustRun(t, "free_busy", `{}`)
	wantAll(t, out, "1. Thu 2026-03-26 09:30–18:00 (8 h 30 min)", "Sun 2026-03-29 08:00–18:00 (10 h)", "9. Wed 2026-04-01 08:00–18:00")
	wantNone(t, out, "10. ")
}

// TestCreateEvent_P6: timed events (with an end, a duration, or the
// default hour; offsets optional) and all-day ones (end day included) are
// created in the owner's zone, with no one notified.
func TestCreateEvent_P6(t *testing.T) {
	for _, tc := range []struct {
		name       string
		args       string
		start, end time.Time
		allDay     bool
		say        string
	}{
		{"duration without offset", `{"title":"Review","start":"2026-03-27T14:00","duration_minutes":90,"location":"Room 2"}`,
			time.Date(2026, 3, 27, 13, 0, 0, 0, time.UTC), time.Date(2026, 3, 27, 14, 30, 0, 0, time.UTC), false,
			"Created: Fri 2026-03-27 14:00–15:30 · Review · at Room 2 · id "},
		{"end with offset", `{"title":"Call","start":"2026-03-30T09:00:00+02:00","end":"2026-03-30T09:45:00+02:00"}`,
			time.Date(2026, 3, 30, 7, 0, 0, 0, time.UTC), time.Date(2026, 3, 30, 7, 45, 0, 0, time.UTC), false,
			"Created: Mon 2026-03-30 09:00–09:45 · Call"},
		{"default hour", `{"title":"Gym","start":"2026-03-28T18:00:00Z"}`,
			time.Date(2026, 3, 28, 18, 0, 0, 0, time.UTC), time.Date(2026, 3, 28, 19, 0, 0, 0, time.UTC), false,
			"Created: Sat 2026-03-28 19:00–20:00 · Gym"},
		{"all-day through end", `{"title":"Holiday","start":"2026-03-30","end":"2026-03-31"}`,
			time.Date(2026, 3, 30, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), true,
			"Created: Mon 2026-03-30 – Tue 2026-03-31, all day · Holiday"},
		{"all_day flag", `{"title":"Birthday","start":"2026-03-28T10:00","all_day":true}`,
			time.Date(2026, 3, 28, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 29, 0, 0, 0, 0, time.UTC), true,
			"Created: Sat 2026-03-28, all day · Birthday"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newCalFixture(t)
			out := f.mustRun(t, "create_event", tc.args)
			wantAll(t, out, tc.say)
			evs := f.srv.Events("primary")
			if len(evs) != 1 {
				t.Fatalf("%d events, want 1", len(evs))
			}
			ev := evs[0]
			if ev.AllDay != tc.allDay {
				t.Errorf("all day %v, want %v", ev.AllDay, tc.allDay)
			}
			if tc.allDay {
				// The fake reads dates in UTC; the dates are what count.
				if ev.Start.Format(time.DateOnly) != tc.start.Format(time.DateOnly) || ev.End.Format(time.DateOnly) != tc.end.Format(time.DateOnly) {
					t.Errorf("dates %s–%s, want %s–%s", ev.Start, ev.End, tc.start, tc.end)
				}
			} else if !ev.Start.Equal(tc.start) || !ev.End.Equal(tc.end) {
				t.Errorf("times %s–%s, want %s–%s", ev.Start, ev.End, tc.start, tc.end)
			}
			if !strings.Contains(out, "id "+ev.ID) {
				t.Errorf("output lacks the id %s:\n%s", ev.ID, out)
			}
			w := f.srv.CalendarWrites()
			if len(w) != 1 || w[0].Method != http.MethodPost || w[0].SendUpdates != "none" {
				t.Errorf("writes %+v, want one insert notifying no one", w)
			}
		})
	}
}

// invitation is an event someone else organized with the owner invited.
func (f *calFixture) invitation() string {
	return f.srv.AddEvent("primary", fakegoogle.CalendarEvent{
		Summary: "Planning", Start: f.at(3, 27, 10, 0), End: f.at(3, 27, 11, 0), Organizer: "boss@example.com",
		Attendees: []fakegoogle.CalendarAttendee{
			{Email: "boss@example.com", Organizer: true, ResponseStatus: "accepted"},
			{Email: fakegoogle.CalendarOwner, Self: true, ResponseStatus: "needsAction"},
			{Email: "peer@example.com", ResponseStatus: "tentative"},
		},
	})
}

// TestInviteGuests_P6: new addresses join the guests, those already
// invited are not added twice, and Google is told to mail everyone.
func TestInviteGuests_P6(t *testing.T) {
	f := newCalFixture(t)
	id := f.srv.AddEvent("primary", fakegoogle.CalendarEvent{Summary: "Lunch", Start: f.at(3, 27, 12, 0), End: f.at(3, 27, 13, 0),
		Attendees: []fakegoogle.CalendarAttendee{{Email: "ann@example.com", ResponseStatus: "accepted"}}})

	out := f.mustRun(t, "invite_guests", `{"event_id":"`+id+`","emails":["Bob <bob@example.com>","ANN@example.com","cy@example.org"]}`)
	wantAll(t, out, "Invited bob@example.com, cy@example.org", "Already invited: ANN@example.com", "3 attendees")
	ev := f.srv.Events("primary")[0]
	var got []string
	for _, a := range ev.Attendees {
		got = append(got, a.Email+"/"+a.ResponseStatus)
	}
	if want := "ann@example.com/accepted bob@example.com/needsAction cy@example.org/needsAction"; strings.Join(got, " ") != want {
		t.Errorf("attendees %v, want %s", got, want)
	}
	if w := f.srv.CalendarWrites(); len(w) != 1 || w[0].SendUpdates != "all" || w[0].EventID != id {
		t.Errorf("writes %+v, want one change that mails all", w)
	}

	out = f.mustRun(t, "invite_guests", `{"event_id":"`+id+`","emails":["bob@example.com"]}`)
	wantAll(t, out, "Nothing to do")
	if w := f.srv.CalendarWrites(); len(w) != 1 {
		t.Errorf("writes %+v after inviting no one new, want none more", w)
	}
}

// TestMoveEvent_P6: an event keeps its length unless an end is given; its
// guests are told, an event without guests mails no one; all-day events
// move by dates; someone else's event is theirs to move.
func TestMoveEvent_P6(t *testing.T) {
	f := newCalFixture(t)
	withGuest := f.srv.AddEvent("primary", fakegoogle.CalendarEvent{Summary: "1:1", Start: f.at(3, 27, 10, 0), End: f.at(3, 27, 10, 45),
		Attendees: []fakegoogle.CalendarAttendee{{Email: "ann@example.com"}}})
	alone := f.srv.AddEvent("primary", fakegoogle.CalendarEvent{Summary: "Focus", Start: f.at(3, 27, 14, 0), End: f.at(3, 27, 16, 0)})
	trip := f.srv.AddEvent("primary", fakegoogle.CalendarEvent{Summary: "Trip", AllDay: true, Start: f.at(4, 3, 0, 0), End: f.at(4, 5, 0, 0)})

	out := f.mustRun(t, "move_event", `{"event_id":"`+withGuest+`","start":"2026-03-30T11:00"}`)
	wantAll(t, out, "Moved from Fri 2026-03-27 10:00–10:45 to: Mon 2026-03-30 11:00–11:45 · 1:1", "1 guest(s) told")
	out = f.mustRun(t, "move_event", `{"event_id":"`+alone+`","start":"2026-03-27T15:00:00+01:00","end":"2026-03-27T15:30:00+01:00"}`)
	wantAll(t, out, "to: Fri 2026-03-27 15:00–15:30 · Focus")
	wantNone(t, out, "told")
	out = f.mustRun(t, "move_event", `{"event_id":"`+trip+`","start":"2026-04-10"}`)
	wantAll(t, out, "to: Fri 2026-04-10 – Sat 2026-04-11, all day · Trip")

	byID := map[string]fakegoogle.CalendarEvent{}
	for _, ev := range f.srv.Events("primary") {
		byID[ev.ID] = ev
	}
	if ev := byID[withGuest]; !ev.Start.Equal(f.at(3, 30, 11, 0)) || ev.End.Sub(ev.Start) != 45*time.Minute {
		t.Errorf("1:1 at %s–%s, want Mon 11:00 for 45 minutes", ev.Start, ev.End)
	}
	if ev := byID[alone]; !ev.Start.Equal(f.at(3, 27, 15, 0)) || !ev.End.Equal(f.at(3, 27, 15, 30)) {
		t.Errorf("focus at %s–%s", ev.Start, ev.End)
	}
	if ev := byID[trip]; !ev.AllDay || ev.Start.Format(time.DateOnly) != "2026-04-10" || ev.End.Format(time.DateOnly) != "2026-04-12" {
		t.Errorf("trip %+v, want all day 2026-04-10 to 2026-04-12 (exclusive)", ev)
	}
	_, err := f.run(t, "move_event", `{"event_id":"`+f.invitation()+`","start":"2026-03-30T11:00"}`)
	if jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT || !strings.Contains(err.Error(), "boss@example.com") {
		t.Errorf("moving someone else's event: %v, want a conflict naming its organizer", err)
	}

	var notified []string
	for _, w := range f.srv.CalendarWrites() {
		notified = append(notified, w.EventID+"="+w.SendUpdates)
	}
	if want := withGuest + "=all " + alone + "=none " + trip + "=none"; strings.Join(notified, " ") != want {
		t.Errorf("writes %v, want %s", notified, want)
	}
}

// TestCancelEvent_P6: the owner's event is deleted and its guests told;
// someone else's invitation is not deleted but pointed to an answer.
func TestCancelEvent_P6(t *testing.T) {
	f := newCalFixture(t)
	mine := f.srv.AddEvent("primary", fakegoogle.CalendarEvent{Summary: "Dinner", Start: f.at(3, 27, 19, 0), End: f.at(3, 27, 21, 0),
		Attendees: []fakegoogle.CalendarAttendee{{Email: "ann@example.com"}, {Email: "bob@example.com"}}})
	theirs := f.invitation()

	out := f.mustRun(t, "cancel_event", `{"event_id":"`+mine+`"}`)
	wantAll(t, out, "Cancelled: Fri 2026-03-27 19:00–21:00 · Dinner", "2 guest(s) told")
	if w := f.srv.CalendarWrites(); len(w) != 1 || w[0].Method != http.MethodDelete || w[0].SendUpdates != "all" {
		t.Errorf("writes %+v, want one delete that mails all", w)
	}

	_, err := f.run(t, "cancel_event", `{"event_id":"`+theirs+`"}`)
	if jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT || !strings.Contains(err.Error(), "respond_to_invitation") {
		t.Errorf("cancelling an invitation: %v, want a conflict pointing to respond_to_invitation", err)
	}
	if evs := f.srv.Events("primary"); len(evs) != 1 || evs[0].ID != theirs {
		t.Errorf("events left %+v, want only the invitation", evs)
	}

	_, err = f.run(t, "cancel_event", `{"event_id":"`+mine+`"}`)
	if jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("cancelling it again: %v, want not found", err)
	}
}

// TestRespondToInvitation_P6: only the owner's own answer changes, every
// other guest is kept, and the organizer is told.
func TestRespondToInvitation_P6(t *testing.T) {
	f := newCalFixture(t)
	id := f.invitation()
	own := f.srv.AddEvent("primary", fakegoogle.CalendarEvent{Summary: "Solo", Start: f.at(3, 27, 8, 0), End: f.at(3, 27, 9, 0)})

	out := f.mustRun(t, "respond_to_invitation", `{"event_id":"`+id+`","response":"tentative","comment":"may be late"}`)
	wantAll(t, out, "Answered tentative: Fri 2026-03-27 10:00–11:00 · Planning", "you answered maybe", "boss@example.com, is told")
	var got []string
	for _, a := range f.srv.Events("primary")[1].Attendees {
		got = append(got, a.Email+"/"+a.ResponseStatus)
	}
	if want := "boss@example.com/accepted " + fakegoogle.CalendarOwner + "/tentative peer@example.com/tentative"; strings.Join(got, " ") != want {
		t.Errorf("attendees %v, want %s", got, want)
	}
	if w := f.srv.CalendarWrites(); len(w) != 1 || w[0].Method != http.MethodPatch || w[0].SendUpdates != "all" {
		t.Errorf("writes %+v, want one patch that tells the organizer", w)
	}

	_, err := f.run(t, "respond_to_invitation", `{"event_id":"`+own+`","response":"accepted"}`)
	if jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
		t.Errorf("answering an event without an invitation: %v, want a conflict", err)
	}
}

// TestCalendarRetriesBusyGoogle_P6: a 429 and a 503 on a read are retried
// by the transport below the client, and the list comes back.
func TestCalendarRetriesBusyGoogle_P6(t *testing.T) {
	f := newCalFixture(t)
	f.srv.AddEvent("primary", fakegoogle.CalendarEvent{Summary: "Dentist", Start: f.at(3, 27, 10, 0), End: f.at(3, 27, 11, 0)})
	f.srv.Fail(http.MethodGet, "/calendar/v3/", http.StatusTooManyRequests, 1)
	f.srv.Fail(http.MethodGet, "/calendar/v3/", http.StatusServiceUnavailable, 1)
	out := f.mustRun(t, "list_events", `{}`)
	wantAll(t, out, "Dentist")
	f.srv.Fail(http.MethodPost, "/calendar/v3/freeBusy", http.StatusTooManyRequests, 2)
	out = f.mustRun(t, "free_busy", `{"from":"2026-03-27","to":"2026-03-27"}`)
	wantAll(t, out, "Fri 2026-03-27 10:00–11:00 (1 h)")
}

// TestCreateEventNotRepeatedOn500_P6: a 500 to an insert may have been
// done, so it is not sent again; the model gets an error that says so
// with a code that is not its fault.
func TestCreateEventNotRepeatedOn500_P6(t *testing.T) {
	f := newCalFixture(t)
	f.srv.Fail(http.MethodPost, "/calendar/v3/calendars/primary/events", http.StatusInternalServerError, 1)
	_, err := f.run(t, "create_event", `{"title":"Review","start":"2026-03-27T14:00"}`)
	if err == nil || jarvisbot.ErrorCode(err) != jarvisbot.EUNAVAILABLE || !strings.Contains(err.Error(), "500") {
		t.Fatalf("create on a 500: %v, want an unavailable error naming the 500", err)
	}
	if evs := f.srv.Events("primary"); len(evs) != 0 {
		t.Errorf("events %+v: the insert was sent again after a 500", evs)
	}
}

// TestCalendarRefusedSignIn_P6_P4: a token Google refuses gives an error
// that is not the model's to fix, naming the 401, for the sign-in layer
// above to act on.
func TestCalendarRefusedSignIn_P6_P4(t *testing.T) {
	f := newCalFixture(t, fakegoogle.WithAuth(func(string) bool { return false }))
	_, err := f.run(t, "list_events", `{}`)
	if err == nil {
		t.Fatal("list with a refused token succeeded")
	}
	if code := jarvisbot.ErrorCode(err); code == jarvisbot.EINVALID || code == jarvisbot.EINTERNAL {
		t.Errorf("code %s for a refused token: %v", code, err)
	}
	var ge *google.APIError
	if !errors.As(err, &ge) || ge.Status != http.StatusUnauthorized {
		t.Errorf("error %v does not keep Google's 401", err)
	}
}

// TestCalendarBadArguments_P6: arguments the model got wrong come back as
// EINVALID with a sentence that says what to give instead, before any
// request is sent.
func TestCalendarBadArguments_P6(t *testing.T) {
	f := newCalFixture(t)
	timed := f.srv.AddEvent("primary", fakegoogle.CalendarEvent{Summary: "1:1", Start: f.at(3, 27, 10, 0), End: f.at(3, 27, 11, 0)})
	for _, tc := range []struct {
		tool, args, say string
	}{
		{"list_events", `{"from":"next tuesday"}`, "YYYY-MM-DD"},
		{"list_events", `{"from":"2026-03-27","to":"2026-03-26"}`, "is not after from"},
		{"list_events", `{"since":"2026-03-27"}`, "unknown field"},
		{"free_busy", `{"day_start":"8am"}`, "HH:MM"},
		{"free_busy", `{"day_start":"18:00","day_end":"08:00"}`, "later day_end"},
		{"create_event", `{"start":"2026-03-27T10:00"}`, "title is required"},
		{"create_event", `{"title":"x","start":"tomorrow 10"}`, "RFC 3339"},
		{"create_event", `{"title":"x","start":"2026-03-27T10:00","end":"2026-03-27T09:00"}`, "not after start"},
		{"create_event", `{"title":"x","start":"2026-03-27T10:00","end":"2026-03-27T11:00","duration_minutes":30}`, "not both"},
		{"create_event", `{"title":"x","start":"2026-03-27T10:00","end":"2026-03-28"}`, "is a date but start has a time"},
		{"invite_guests", `{"event_id":"` + timed + `","emails":["ann at example"]}`, "not an email address"},
		{"invite_guests", `{"event_id":"` + timed + `","emails":[]}`, "emails is required"},
		{"move_event", `{"event_id":"` + timed + `","start":"2026-03-30"}`, "not all-day"},
		{"move_event", `{"event_id":"` + timed + `"}`, "start is required"},
		{"respond_to_invitation", `{"event_id":"` + timed + `","response":"maybe"}`, "accepted, declined or tentative"},
		{"cancel_event", `{}`, "event_id is required"},
	} {
		_, err := f.run(t, tc.tool, tc.args)
		if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), tc.say) {
			t.Errorf("%s %s: %v, want EINVALID saying %q", tc.tool, tc.args, err, tc.say)
		}
	}
	if w := f.srv.CalendarWrites(); len(w) != 0 {
		t.Errorf("writes %+v after bad arguments, want none", w)
	}
	for _, tc := range []struct{ tool, args, say string }{
		{"move_event", `{"event_id":"no-such-event","start":"2026-03-30T10:00"}`, "list_events"},
		{"list_events", `{"calendar_id":"nobody@example.com"}`, "nobody@example.com"},
		{"free_busy", `{"calendar_id":"nobody@example.com"}`, "leave calendar_id empty"},
	} {
		_, err := f.run(t, tc.tool, tc.args)
		if jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND || !strings.Contains(err.Error(), tc.say) {
			t.Errorf("%s %s: %v, want not found saying %q", tc.tool, tc.args, err, tc.say)
		}
	}
}
