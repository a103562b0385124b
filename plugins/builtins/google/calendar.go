package google

import (
	"context"
	"encoding/json"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/native"
)

// Bounds of the calendar tools' lists.
const (
	calDefaultLimit = 10
	calMaxLimit     = 50
	// calMaxPages stops a list whose server keeps answering empty pages.
	calMaxPages = 20
	// calMaxGuests bounds one invitation, so a pasted list cannot mail a crowd.
	calMaxGuests = 50
)

// calTimeHelp names the time formats the tools read, for their errors.
const calTimeHelp = "RFC 3339 like 2026-03-14T15:00:00+01:00 (without the offset it is read in the owner's time zone) or a date YYYY-MM-DD"

// CalendarTools are the Google Calendar plugin's tools over the owner's
// calendars (the primary one unless calendar_id says otherwise). Times are
// read and shown in o.Location; "now" is o.Now.
func CalendarTools(o Options) []native.Tool {
	zone := o.calZoneLabel()
	return []native.Tool{
		{
			Name: "list_events",
			Description: "List or search the owner's calendar events in a time range, in time order (times in " + zone + "). " +
				"Default range: from now to the end of the 7th day. Give query to search titles, descriptions, places and guests. " +
				"Each line has the event id the other calendar tools take, and says when an invitation is not answered yet.",
			Schema: `{"type":"object","properties":{` +
				`"from":{"type":"string","description":"start of the range: RFC 3339 date-time or a date YYYY-MM-DD (the whole day); default now"},` +
				`"to":{"type":"string","description":"end of the range: RFC 3339 date-time or a date YYYY-MM-DD (that day included); default the end of the 7th day from the start"},` +
				`"query":{"type":"string","description":"words to search for in the events; empty lists all"},` +
				`"limit":{"type":"integer","minimum":1,"maximum":50,"description":"most events to list, default 10"},` +
				calIDSchema + `},"additionalProperties":false}`,
			Tier: catalog.TierSafe,
			Run:  o.listEvents,
		},
		{
			Name: "free_busy",
			Description: "Find when the owner is busy and the free slots of at least min_minutes between day_start and day_end each day (times in " + zone + "). " +
				"Default range: from now to the end of the 7th day; use it before proposing or creating a meeting.",
			Schema: `{"type":"object","properties":{` +
				`"from":{"type":"string","description":"start: RFC 3339 date-time or a date YYYY-MM-DD; default now"},` +
				`"to":{"type":"string","description":"end: RFC 3339 date-time or a date YYYY-MM-DD (that day included); default the end of the 7th day"},` +
				`"min_minutes":{"type":"integer","minimum":5,"description":"shortest free slot worth listing, in minutes; default 30"},` +
				`"day_start":{"type":"string","description":"start of the working day, HH:MM; default 08:00"},` +
				`"day_end":{"type":"string","description":"end of the working day, HH:MM; default 18:00"},` +
				`"limit":{"type":"integer","minimum":1,"maximum":50,"description":"most busy periods and free slots to list each, default 20"},` +
				calIDSchema + `},"additionalProperties":false}`,
			Tier: catalog.TierSafe,
			Run:  o.freeBusy,
		},
		{
			Name: "create_event",
			Description: "Create an event in the owner's calendar, without guests (add them with invite_guests). " +
				"Give end or duration_minutes (default 60 minutes); a date-only start makes an all-day event. Times in " + zone + ".",
			Schema: `{"type":"object","properties":{` +
				`"title":{"type":"string","description":"the event's title"},` +
				`"start":{"type":"string","description":"RFC 3339 date-time, or a date YYYY-MM-DD for an all-day event"},` +
				`"end":{"type":"string","description":"RFC 3339 date-time; for an all-day event the last day YYYY-MM-DD (included)"},` +
				`"duration_minutes":{"type":"integer","minimum":1,"description":"length instead of end"},` +
				`"all_day":{"type":"boolean","description":"an all-day event on start's date (through end's date)"},` +
				`"location":{"type":"string","description":"where it takes place"},` +
				`"description":{"type":"string","description":"notes for the event"},` +
				calIDSchema + `},"required":["title","start"],"additionalProperties":false}`,
			Tier:     catalog.TierMonitor,
			Run:      o.createEvent,
			Describe: o.describeCreateEvent,
		},
		{
			Name:        "invite_guests",
			Description: "Invite people (email addresses) to an existing event of the owner's; Google mails them the invitation.",
			Schema: `{"type":"object","properties":{` +
				calEventIDSchema +
				`"emails":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":50,"description":"the guests' email addresses"},` +
				calIDSchema + `},"required":["event_id","emails"],"additionalProperties":false}`,
			Tier:     catalog.TierAsk,
			Run:      o.inviteGuests,
			Describe: o.describeInviteGuests,
		},
		{
			Name: "move_event",
			Description: "Move an event to a new start, keeping its length unless end is given; its guests are told. " +
				"Times in " + zone + "; an all-day event takes dates YYYY-MM-DD.",
			Schema: `{"type":"object","properties":{` +
				calEventIDSchema +
				`"start":{"type":"string","description":"new start: RFC 3339 date-time, or a date YYYY-MM-DD for an all-day event"},` +
				`"end":{"type":"string","description":"new end (for an all-day event the last day, included); default: keep the length"},` +
				calIDSchema + `},"required":["event_id","start"],"additionalProperties":false}`,
			Tier:     catalog.TierAsk,
			Run:      o.moveEvent,
			Describe: o.describeMoveEvent,
		},
		{
			Name:        "cancel_event",
			Description: "Cancel (delete) an event the owner organizes; its guests are told. To turn down someone else's invitation use respond_to_invitation.",
			Schema: `{"type":"object","properties":{` +
				calEventIDSchema +
				calIDSchema + `},"required":["event_id"],"additionalProperties":false}`,
			Tier:     catalog.TierAsk,
			Run:      o.cancelEvent,
			Describe: o.describeCancelEvent,
		},
		{
			Name:        "respond_to_invitation",
			Description: "Answer an invitation in the owner's calendar: accepted, declined or tentative; the organizer is told.",
			Schema: `{"type":"object","properties":{` +
				calEventIDSchema +
				`"response":{"type":"string","enum":["accepted","declined","tentative"],"description":"the owner's answer"},` +
				`"comment":{"type":"string","description":"optional note to the organizer"},` +
				calIDSchema + `},"required":["event_id","response"],"additionalProperties":false}`,
			Tier:     catalog.TierMonitor,
			Run:      o.respondToInvitation,
			Describe: o.describeRespondToInvitation,
		},
	}
}

// Schema parts every calendar tool shares.
const (
	calIDSchema      = `"calendar_id":{"type":"string","description":"calendar id; default primary, the owner's own"}`
	calEventIDSchema = `"event_id":{"type":"string","description":"the event's id, from list_events"},`
)

func calendarID(id string) string {
	if id = strings.TrimSpace(id); id == "" {
		return "primary"
	}
	return id
}

// calZoneLabel names the owner's zone for the model: its IANA name, or its
// abbreviation when the zone is the machine's unnamed local one.
func (o Options) calZoneLabel() string {
	if n := o.loc().String(); n != "Local" && n != "" {
		return n
	}
	return o.now().Format("MST")
}

// calZoneName is the IANA name Google takes in timeZone fields, "" when the
// owner's zone has none (the offsets in the times then say it all).
func (o Options) calZoneName() string {
	if n := o.loc().String(); n != "Local" {
		return n
	}
	return ""
}

// calTime reads a time argument: RFC 3339, a date-time without offset (in
// the owner's zone), or a date YYYY-MM-DD, which it returns as that day's
// midnight with date true.
func (o Options) calTime(name, s string) (t time.Time, date bool, err error) {
	s = strings.TrimSpace(s)
	loc := o.loc()
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.In(loc), false, nil
	}
	if t, err := time.ParseInLocation(time.DateOnly, s, loc); err == nil {
		return t, true, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, false, nil
		}
	}
	return time.Time{}, false, jarvisbot.Errorf(jarvisbot.EINVALID, "%s %q is not a time I can read: give %s", name, s, calTimeHelp)
}

// calRange reads a from/to pair: from defaults to now, to to the end of
// the 7th day counting from's day as the first; a date as to includes
// that day.
func (o Options) calRange(from, to string) (time.Time, time.Time, error) {
	start := o.now()
	if from != "" {
		t, _, err := o.calTime("from", from)
		if err != nil {
			return time.Time{}, time.Time{}, err
		}
		start = t
	}
	end := calDay(start).AddDate(0, 0, 7)
	if to != "" {
		t, date, err := o.calTime("to", to)
		if err != nil {
			return time.Time{}, time.Time{}, err
		}
		if date {
			t = t.AddDate(0, 0, 1)
		}
		end = t
	}
	if !end.After(start) {
		return time.Time{}, time.Time{}, jarvisbot.Errorf(jarvisbot.EINVALID,
			"to (%s) is not after from (%s): give a later to or an earlier from", calStamp(end), calStamp(start))
	}
	return start, end, nil
}

// calDay is the midnight that begins t's day, in t's zone.
func calDay(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}

func calStamp(t time.Time) string { return t.Format("Mon 2006-01-02 15:04") }

// calSpan shows a period: "Mon 2026-03-16 14:00–15:00", or with both days
// when it crosses midnight.
func calSpan(start, end time.Time) string {
	if calDay(start).Equal(calDay(end)) || end.Equal(calDay(start).AddDate(0, 0, 1)) {
		return start.Format("Mon 2006-01-02 15:04") + "–" + end.Format("15:04")
	}
	return calStamp(start) + " – " + calStamp(end)
}

// calWhen is when an event happens, in the owner's zone.
type calWhen struct {
	start, end time.Time
	allDay     bool
}

func (o Options) eventWhen(ev *event) (calWhen, bool) {
	if ev.Start == nil || ev.End == nil {
		return calWhen{}, false
	}
	read := func(dt *eventTime) (time.Time, bool, bool) {
		if dt.Date != "" {
			t, err := time.ParseInLocation(time.DateOnly, dt.Date, o.loc())
			return t, true, err == nil
		}
		t, err := time.Parse(time.RFC3339, dt.DateTime)
		return t.In(o.loc()), false, err == nil
	}
	s, allDay, ok1 := read(ev.Start)
	e, _, ok2 := read(ev.End)
	return calWhen{start: s, end: e, allDay: allDay}, ok1 && ok2
}

func (w calWhen) String() string {
	if !w.allDay {
		return calSpan(w.start, w.end)
	}
	last := w.end.AddDate(0, 0, -1) // the API's end date is exclusive
	if !last.After(w.start) {
		return w.start.Format("Mon 2006-01-02") + ", all day"
	}
	return w.start.Format("Mon 2006-01-02") + " – " + last.Format("Mon 2006-01-02") + ", all day"
}

// describeEvent is an event on one line: when, title, place, guests, the
// owner's answer where one is awaited or was not yes, and its id.
func (o Options) describeEvent(ev *event) string {
	parts := make([]string, 0, 6)
	if w, ok := o.eventWhen(ev); ok {
		parts = append(parts, w.String())
	}
	title := native.OneLine(ev.Summary)
	if title == "" {
		title = "(no title)"
	}
	parts = append(parts, title)
	if loc := native.OneLine(ev.Location); loc != "" {
		parts = append(parts, "at "+loc)
	}
	if n := len(ev.Attendees); n == 1 {
		parts = append(parts, "1 attendee")
	} else if n > 1 {
		parts = append(parts, fmt.Sprintf("%d attendees", n))
	}
	if me := selfAttendee(ev); me != nil {
		switch me.ResponseStatus {
		case "needsAction":
			s := "invitation not answered yet"
			if ev.Organizer != nil && !ev.Organizer.Self && ev.Organizer.Email != "" {
				s += " (from " + ev.Organizer.Email + ")"
			}
			parts = append(parts, s)
		case "tentative":
			parts = append(parts, "you answered maybe")
		case "declined":
			parts = append(parts, "you declined")
		}
	}
	parts = append(parts, "id "+ev.ID)
	return strings.Join(parts, " · ")
}

func selfAttendee(ev *event) *eventAttendee {
	for _, a := range ev.Attendees {
		if a != nil && a.Self {
			return a
		}
	}
	return nil
}

// eventGuests counts an event's attendees other than the owner: the people a
// change would be mailed to.
func eventGuests(ev *event) int {
	n := 0
	for _, a := range ev.Attendees {
		if a != nil && !a.Self {
			n++
		}
	}
	return n
}

// eventNotify is the sendUpdates value for a change to ev: its guests hear of
// it; an event without guests mails no one.
func eventNotify(ev *event) string {
	if eventGuests(ev) > 0 {
		return "all"
	}
	return "none"
}

func organizedByOwner(ev *event) bool {
	return ev.Organizer == nil || ev.Organizer.Self
}

type listEventsArgs struct {
	From       string `json:"from"`
	To         string `json:"to"`
	Query      string `json:"query"`
	Limit      int    `json:"limit"`
	CalendarID string `json:"calendar_id"`
}

func (o Options) listEvents(ctx context.Context, raw json.RawMessage) (string, error) {
	var a listEventsArgs
	if err := native.Decode(raw, &a); err != nil {
		return "", err
	}
	start, end, err := o.calRange(a.From, a.To)
	if err != nil {
		return "", err
	}
	limit := native.Limit(a.Limit, calDefaultLimit, calMaxLimit)
	cal := calendarID(a.CalendarID)
	query := eventQuery{
		TimeMin: start.Format(time.RFC3339), TimeMax: end.Format(time.RFC3339),
		Query: strings.TrimSpace(a.Query), MaxResults: limit,
	}
	svc := o.calendarAPI()
	var items []*event
	more := false
	for range calMaxPages {
		res, err := svc.listEvents(ctx, cal, query)
		if err != nil {
			return "", apiError(err, "list events in calendar "+cal)
		}
		items = append(items, res.Items...)
		if len(items) >= limit || res.NextPageToken == "" {
			more = len(items) > limit || res.NextPageToken != ""
			break
		}
		query.PageToken = res.NextPageToken
	}
	if len(items) > limit {
		items = items[:limit]
	}

	var b strings.Builder
	what := "events"
	if q := native.OneLine(a.Query); q != "" {
		what = fmt.Sprintf("events matching %q", q)
	}
	if len(items) == 0 {
		fmt.Fprintf(&b, "No %s from %s to %s (%s).", what, calStamp(start), calStamp(end), o.calZoneLabel())
		return b.String(), nil
	}
	fmt.Fprintf(&b, "%s from %s to %s (%s):\n", strings.ToUpper(what[:1])+what[1:], calStamp(start), calStamp(end), o.calZoneLabel())
	for i, ev := range items {
		fmt.Fprintf(&b, "%d. %s\n", i+1, o.describeEvent(ev))
	}
	if more {
		fmt.Fprintf(&b, "More events follow: raise limit (most %d) or start from after the last one.\n", calMaxLimit)
	}
	return native.Clip(strings.TrimSuffix(b.String(), "\n"), native.MaxResult), nil
}

type freeBusyArgs struct {
	From       string `json:"from"`
	To         string `json:"to"`
	MinMinutes int    `json:"min_minutes"`
	DayStart   string `json:"day_start"`
	DayEnd     string `json:"day_end"`
	Limit      int    `json:"limit"`
	CalendarID string `json:"calendar_id"`
}

// readDayClock reads HH:MM as minutes after midnight; 24:00 is the day's end.
func readDayClock(name, s, def string) (int, error) {
	if s = strings.TrimSpace(s); s == "" {
		s = def
	}
	if s == "24:00" {
		return 24 * 60, nil
	}
	t, err := time.Parse("15:04", s)
	if err != nil {
		return 0, jarvisbot.Errorf(jarvisbot.EINVALID, "%s %q is not a time of day: give HH:MM, like 08:30", name, s)
	}
	return t.Hour()*60 + t.Minute(), nil
}

type calPeriod struct{ start, end time.Time }

func (o Options) freeBusy(ctx context.Context, raw json.RawMessage) (string, error) {
	var a freeBusyArgs
	if err := native.Decode(raw, &a); err != nil {
		return "", err
	}
	start, end, err := o.calRange(a.From, a.To)
	if err != nil {
		return "", err
	}
	dayStart, err := readDayClock("day_start", a.DayStart, "08:00")
	if err != nil {
		return "", err
	}
	dayEnd, err := readDayClock("day_end", a.DayEnd, "18:00")
	if err != nil {
		return "", err
	}
	if dayEnd <= dayStart {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "day_end (%s) is not after day_start (%s): give a later day_end", a.DayEnd, a.DayStart)
	}
	if a.MinMinutes < 0 {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "min_minutes %d is negative: give a length in minutes, like 30", a.MinMinutes)
	}
	minLen := time.Duration(native.Limit(a.MinMinutes, 30, 24*60)) * time.Minute
	limit := native.Limit(a.Limit, 20, calMaxLimit)
	cal := calendarID(a.CalendarID)
	res, err := o.calendarAPI().freeBusy(ctx, &freeBusyRequest{
		TimeMin:  start.Format(time.RFC3339),
		TimeMax:  end.Format(time.RFC3339),
		TimeZone: o.calZoneName(),
		Items:    []freeBusyItem{{ID: cal}},
	})
	if err != nil {
		return "", apiError(err, "read free/busy of calendar "+cal)
	}
	fc, ok := res.Calendars[cal]
	if !ok && len(res.Calendars) == 1 { // Google may key the owner's calendar by address
		for _, c := range res.Calendars {
			fc = c
		}
	}
	if len(fc.Errors) > 0 {
		if r := fc.Errors[0].Reason; r != "notFound" {
			return "", jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "read free/busy of calendar %q: Google answered %s", cal, r)
		}
		return "", jarvisbot.Errorf(jarvisbot.ENOTFOUND, "read free/busy: calendar %q not found; leave calendar_id empty for the owner's own", cal)
	}
	var busy []calPeriod
	for _, p := range fc.Busy {
		s, err1 := time.Parse(time.RFC3339, p.Start)
		e, err2 := time.Parse(time.RFC3339, p.End)
		if err1 != nil || err2 != nil || !e.After(s) {
			continue
		}
		busy = append(busy, calPeriod{s.In(o.loc()), e.In(o.loc())})
	}
	busy = mergePeriods(busy)
	free := freeSlots(busy, start, end, dayStart, dayEnd, minLen)

	var b strings.Builder
	fmt.Fprintf(&b, "From %s to %s (%s):\n", calStamp(start), calStamp(end), o.calZoneLabel())
	if len(busy) == 0 {
		b.WriteString("Busy: nothing.\n")
	} else {
		b.WriteString("Busy:\n")
		writePeriods(&b, busy, limit)
	}
	window := fmt.Sprintf("%02d:%02d and %02d:%02d", dayStart/60, dayStart%60, dayEnd/60, dayEnd%60)
	if len(free) == 0 {
		fmt.Fprintf(&b, "No free slot of %s or more between %s.", calLength(minLen), window)
	} else {
		fmt.Fprintf(&b, "Free slots of %s or more between %s:\n", calLength(minLen), window)
		writePeriods(&b, free, limit)
	}
	return native.Clip(strings.TrimSuffix(b.String(), "\n"), native.MaxResult), nil
}

func writePeriods(b *strings.Builder, ps []calPeriod, limit int) {
	for i, p := range ps {
		if i == limit {
			fmt.Fprintf(b, "… and %d more (raise limit or narrow the range)\n", len(ps)-limit)
			break
		}
		fmt.Fprintf(b, "%d. %s (%s)\n", i+1, calSpan(p.start, p.end), calLength(p.end.Sub(p.start)))
	}
}

// mergePeriods sorts periods and joins those that overlap or touch.
func mergePeriods(ps []calPeriod) []calPeriod {
	slices.SortFunc(ps, func(a, b calPeriod) int { return a.start.Compare(b.start) })
	var out []calPeriod
	for _, p := range ps {
		if n := len(out); n > 0 && !p.start.After(out[n-1].end) {
			if p.end.After(out[n-1].end) {
				out[n-1].end = p.end
			}
			continue
		}
		out = append(out, p)
	}
	return out
}

// freeSlots are the gaps between busy periods (sorted, merged) within each
// day's working hours (minutes after midnight) inside [from, to), of at
// least minLen.
func freeSlots(busy []calPeriod, from, to time.Time, dayStart, dayEnd int, minLen time.Duration) []calPeriod {
	var out []calPeriod
	for day := calDay(from); day.Before(to); day = day.AddDate(0, 0, 1) {
		y, m, d := day.Date()
		ws := time.Date(y, m, d, dayStart/60, dayStart%60, 0, 0, day.Location())
		we := time.Date(y, m, d, dayEnd/60, dayEnd%60, 0, 0, day.Location())
		if ws.Before(from) {
			ws = from
		}
		if we.After(to) {
			we = to
		}
		cur := ws
		for _, p := range busy {
			if !p.end.After(cur) {
				continue
			}
			if !p.start.Before(we) {
				break
			}
			if p.start.Sub(cur) >= minLen {
				out = append(out, calPeriod{cur, p.start})
			}
			cur = p.end
		}
		if we.Sub(cur) >= minLen {
			out = append(out, calPeriod{cur, we})
		}
	}
	return out
}

// calLength shows a duration as "1 h 30 min".
func calLength(d time.Duration) string {
	m := int(d.Round(time.Minute) / time.Minute)
	switch {
	case m >= 24*60 && m%(24*60) == 0:
		if m == 24*60 {
			return "1 day"
		}
		return fmt.Sprintf("%d days", m/(24*60))
	case m >= 60 && m%60 == 0:
		return fmt.Sprintf("%d h", m/60)
	case m >= 60:
		return fmt.Sprintf("%d h %d min", m/60, m%60)
	}
	return fmt.Sprintf("%d min", m)
}

type createEventArgs struct {
	Title       string `json:"title"`
	Start       string `json:"start"`
	End         string `json:"end"`
	Duration    int    `json:"duration_minutes"`
	AllDay      bool   `json:"all_day"`
	Location    string `json:"location"`
	Description string `json:"description"`
	CalendarID  string `json:"calendar_id"`
}

// newEvent is the event create_event's arguments ask for, checked, its
// times in the owner's zone.
func (o Options) newEvent(a createEventArgs) (*event, error) {
	switch {
	case strings.TrimSpace(a.Title) == "":
		return nil, native.Need("title")
	case strings.TrimSpace(a.Start) == "":
		return nil, native.Need("start")
	case a.End != "" && a.Duration != 0:
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "give end or duration_minutes, not both")
	case a.Duration < 0:
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "duration_minutes %d is negative: give the length in minutes", a.Duration)
	}
	start, date, err := o.calTime("start", a.Start)
	if err != nil {
		return nil, err
	}
	ev := &event{Summary: strings.TrimSpace(a.Title), Location: a.Location, Description: a.Description}
	if a.AllDay || date {
		first := calDay(start)
		last := first
		switch {
		case a.End != "":
			e, _, err := o.calTime("end", a.End)
			if err != nil {
				return nil, err
			}
			last = calDay(e)
		case a.Duration > 0:
			last = first.AddDate(0, 0, (a.Duration+24*60-1)/(24*60)-1)
		}
		if last.Before(first) {
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "end %s is before start %s: give the event's last day", last.Format(time.DateOnly), first.Format(time.DateOnly))
		}
		ev.Start = &eventTime{Date: first.Format(time.DateOnly)}
		ev.End = &eventTime{Date: last.AddDate(0, 0, 1).Format(time.DateOnly)}
	} else {
		end := start.Add(time.Hour)
		switch {
		case a.End != "":
			e, eDate, err := o.calTime("end", a.End)
			if err != nil {
				return nil, err
			}
			if eDate {
				return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "end %q is a date but start has a time: give end as a date-time (%s), or set all_day", a.End, calTimeHelp)
			}
			end = e
		case a.Duration > 0:
			end = start.Add(time.Duration(a.Duration) * time.Minute)
		}
		if !end.After(start) {
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "end (%s) is not after start (%s): give a later end", calStamp(end), calStamp(start))
		}
		ev.Start = &eventTime{DateTime: start.Format(time.RFC3339), TimeZone: o.calZoneName()}
		ev.End = &eventTime{DateTime: end.Format(time.RFC3339), TimeZone: o.calZoneName()}
	}
	return ev, nil
}

func (o Options) createEvent(ctx context.Context, raw json.RawMessage) (string, error) {
	var a createEventArgs
	if err := native.Decode(raw, &a); err != nil {
		return "", err
	}
	ev, err := o.newEvent(a)
	if err != nil {
		return "", err
	}
	cal := calendarID(a.CalendarID)
	made, err := o.calendarAPI().insertEvent(ctx, cal, ev, "none")
	if err != nil {
		return "", apiError(err, fmt.Sprintf("create the event %q in calendar %s", ev.Summary, cal))
	}
	return "Created: " + o.describeEvent(made), nil
}

// openEvent fetches the event a tool acts on, with the API and the
// calendar id the tool changes it through.
func (o Options) openEvent(ctx context.Context, calID, id string) (calendarAPI, string, *event, error) {
	svc := o.calendarAPI()
	cal := calendarID(calID)
	ev, err := svc.getEvent(ctx, cal, id)
	if err != nil {
		return calendarAPI{}, "", nil, apiError(err, fmt.Sprintf("find event %q in calendar %s (ids come from list_events)", id, cal))
	}
	return svc, cal, ev, nil
}

// ownersEvent refuses to change an event someone else organizes; instead
// says what the owner can do.
func ownersEvent(ev *event, instead string) error {
	if organizedByOwner(ev) {
		return nil
	}
	return jarvisbot.Errorf(jarvisbot.ECONFLICT, "%q is organized by %s, not the owner: %s", native.OneLine(ev.Summary), ev.Organizer.Email, instead)
}

type inviteArgs struct {
	EventID    string   `json:"event_id"`
	Emails     []string `json:"emails"`
	CalendarID string   `json:"calendar_id"`
}

func (o Options) inviteGuests(ctx context.Context, raw json.RawMessage) (string, error) {
	var a inviteArgs
	if err := native.Decode(raw, &a); err != nil {
		return "", err
	}
	if strings.TrimSpace(a.EventID) == "" {
		return "", native.Need("event_id")
	}
	if len(a.Emails) == 0 {
		return "", native.Need("emails")
	}
	if len(a.Emails) > calMaxGuests {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "%d emails are more than one invitation takes (%d): invite fewer at a time", len(a.Emails), calMaxGuests)
	}
	var emails []string
	for _, e := range a.Emails {
		addr, err := mail.ParseAddress(strings.TrimSpace(e))
		if err != nil {
			return "", jarvisbot.Errorf(jarvisbot.EINVALID, "%q is not an email address: give addresses like name@example.com", e)
		}
		emails = append(emails, addr.Address)
	}
	svc, cal, ev, err := o.openEvent(ctx, a.CalendarID, a.EventID)
	if err != nil {
		return "", err
	}
	attendees := slices.Clone(ev.Attendees)
	var added, already []string
	for _, e := range emails {
		if slices.ContainsFunc(attendees, func(at *eventAttendee) bool { return at != nil && strings.EqualFold(at.Email, e) }) {
			already = append(already, e)
			continue
		}
		attendees = append(attendees, &eventAttendee{Email: e})
		added = append(added, e)
	}
	if len(added) == 0 {
		return fmt.Sprintf("Nothing to do: %s already invited to %s", strings.Join(already, ", "), o.describeEvent(ev)), nil
	}
	done, err := svc.patchEvent(ctx, cal, ev.ID, &event{Attendees: attendees}, "all")
	if err != nil {
		return "", apiError(err, fmt.Sprintf("invite guests to event %q", ev.ID))
	}
	out := fmt.Sprintf("Invited %s; Google mails them the invitation.\n%s", strings.Join(added, ", "), o.describeEvent(done))
	if len(already) > 0 {
		out += "\nAlready invited: " + strings.Join(already, ", ")
	}
	return out, nil
}

type moveArgs struct {
	EventID    string `json:"event_id"`
	Start      string `json:"start"`
	End        string `json:"end"`
	CalendarID string `json:"calendar_id"`
}

func (o Options) moveEvent(ctx context.Context, raw json.RawMessage) (string, error) {
	var a moveArgs
	if err := native.Decode(raw, &a); err != nil {
		return "", err
	}
	switch {
	case strings.TrimSpace(a.EventID) == "":
		return "", native.Need("event_id")
	case strings.TrimSpace(a.Start) == "":
		return "", native.Need("start")
	}
	start, date, err := o.calTime("start", a.Start)
	if err != nil {
		return "", err
	}
	var end time.Time
	endDate := false
	if a.End != "" {
		if end, endDate, err = o.calTime("end", a.End); err != nil {
			return "", err
		}
	}
	svc, cal, ev, err := o.openEvent(ctx, a.CalendarID, a.EventID)
	if err != nil {
		return "", err
	}
	if err := ownersEvent(ev, "only they can move it; answer it with respond_to_invitation"); err != nil {
		return "", err
	}
	was, ok := o.eventWhen(ev)
	if !ok {
		return "", jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "move event %q: Google gave it no readable start and end", ev.ID)
	}
	patch := &event{}
	if was.allDay {
		first := calDay(start)
		next := first.AddDate(0, 0, calDays(was.start, was.end))
		if a.End != "" {
			next = calDay(end).AddDate(0, 0, 1)
		}
		if !next.After(first) {
			return "", jarvisbot.Errorf(jarvisbot.EINVALID, "end %s is before start %s: give the event's last day", a.End, first.Format(time.DateOnly))
		}
		patch.Start = &eventTime{Date: first.Format(time.DateOnly)}
		patch.End = &eventTime{Date: next.Format(time.DateOnly)}
	} else {
		if date || endDate {
			return "", jarvisbot.Errorf(jarvisbot.EINVALID, "%q is not all-day: give start (and end) as date-times, %s", native.OneLine(ev.Summary), calTimeHelp)
		}
		if a.End == "" {
			end = start.Add(was.end.Sub(was.start))
		}
		if !end.After(start) {
			return "", jarvisbot.Errorf(jarvisbot.EINVALID, "end (%s) is not after start (%s): give a later end", calStamp(end), calStamp(start))
		}
		tz := ev.Start.TimeZone
		if tz == "" {
			tz = o.calZoneName()
		}
		patch.Start = &eventTime{DateTime: start.Format(time.RFC3339), TimeZone: tz}
		patch.End = &eventTime{DateTime: end.Format(time.RFC3339), TimeZone: tz}
	}
	done, err := svc.patchEvent(ctx, cal, ev.ID, patch, eventNotify(ev))
	if err != nil {
		return "", apiError(err, fmt.Sprintf("move event %q", ev.ID))
	}
	out := fmt.Sprintf("Moved from %s to: %s", was, o.describeEvent(done))
	if n := eventGuests(ev); n > 0 {
		out += fmt.Sprintf("\n%d guest(s) told of the change.", n)
	}
	return out, nil
}

// calDays is how many calendar days an all-day event spans.
func calDays(start, end time.Time) int {
	n := 0
	for d := start; d.Before(end); d = d.AddDate(0, 0, 1) {
		n++
	}
	return max(n, 1)
}

type cancelArgs struct {
	EventID    string `json:"event_id"`
	CalendarID string `json:"calendar_id"`
}

func (o Options) cancelEvent(ctx context.Context, raw json.RawMessage) (string, error) {
	var a cancelArgs
	if err := native.Decode(raw, &a); err != nil {
		return "", err
	}
	if strings.TrimSpace(a.EventID) == "" {
		return "", native.Need("event_id")
	}
	svc, cal, ev, err := o.openEvent(ctx, a.CalendarID, a.EventID)
	if err != nil {
		return "", err
	}
	if err := ownersEvent(ev, "decline it with respond_to_invitation instead"); err != nil {
		return "", err
	}
	if err := svc.deleteEvent(ctx, cal, ev.ID, eventNotify(ev)); err != nil {
		return "", apiError(err, fmt.Sprintf("cancel event %q", ev.ID))
	}
	out := "Cancelled: " + o.describeEvent(ev)
	if n := eventGuests(ev); n > 0 {
		out += fmt.Sprintf("\n%d guest(s) told of the cancellation.", n)
	}
	return out, nil
}

type respondArgs struct {
	EventID    string `json:"event_id"`
	Response   string `json:"response"`
	Comment    string `json:"comment"`
	CalendarID string `json:"calendar_id"`
}

func (o Options) respondToInvitation(ctx context.Context, raw json.RawMessage) (string, error) {
	var a respondArgs
	if err := native.Decode(raw, &a); err != nil {
		return "", err
	}
	if strings.TrimSpace(a.EventID) == "" {
		return "", native.Need("event_id")
	}
	switch a.Response {
	case "accepted", "declined", "tentative":
	case "":
		return "", native.Need("response")
	default:
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "response %q is not an answer Google takes: give accepted, declined or tentative", a.Response)
	}
	svc, cal, ev, err := o.openEvent(ctx, a.CalendarID, a.EventID)
	if err != nil {
		return "", err
	}
	me := selfAttendee(ev)
	if me == nil {
		return "", jarvisbot.Errorf(jarvisbot.ECONFLICT, "the owner is not among the guests of %q, so there is no invitation to answer", native.OneLine(ev.Summary))
	}
	// The attendee list is replaced as a whole by a patch: send every
	// guest back, with only the owner's own entry changed.
	attendees := make([]*eventAttendee, 0, len(ev.Attendees))
	for _, at := range ev.Attendees {
		if at == me {
			changed := *at
			changed.ResponseStatus = a.Response
			if a.Comment != "" {
				changed.Comment = a.Comment
			}
			at = &changed
		}
		attendees = append(attendees, at)
	}
	done, err := svc.patchEvent(ctx, cal, ev.ID, &event{Attendees: attendees}, "all")
	if err != nil {
		return "", apiError(err, fmt.Sprintf("answer the invitation to event %q", ev.ID))
	}
	out := fmt.Sprintf("Answered %s: %s", a.Response, o.describeEvent(done))
	if ev.Organizer != nil && ev.Organizer.Email != "" && !ev.Organizer.Self {
		out += "\nThe organizer, " + ev.Organizer.Email + ", is told."
	}
	return out, nil
}
