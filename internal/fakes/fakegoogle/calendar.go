package fakegoogle

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// CalendarOwner is the signed-in owner's address: the primary calendar's
// id as Google reports it, and the attendee the fake marks self.
const CalendarOwner = "owner@example.com"

// calendarDefaultPage is how many events a list page holds when the
// request does not say (Google's default).
const calendarDefaultPage = 250

// A CalendarEvent is one event as tests seed and inspect it. Start and
// End are instants; for an all-day event they are midnights (End
// exclusive, as in the API) in the zone the dates are meant in.
type CalendarEvent struct {
	ID          string
	Summary     string
	Description string
	Location    string
	Start, End  time.Time
	AllDay      bool
	// TimeZone is the event's zone name as the API carries it, if any.
	TimeZone  string
	Attendees []CalendarAttendee
	// Organizer is the organizer's address; "" means the owner.
	Organizer string
	// Transparent events (shown as free) do not count in free/busy.
	Transparent bool
}

// A CalendarAttendee is one guest of an event.
type CalendarAttendee struct {
	Email          string
	DisplayName    string
	ResponseStatus string // needsAction, declined, tentative, accepted
	Self           bool   // the owner's own entry
	Organizer      bool
	Optional       bool
}

// A CalendarWrite is one change a client made to an event, with whom
// Google was told to notify (sendUpdates: all, externalOnly, none or "").
type CalendarWrite struct {
	Method      string // POST, PATCH, PUT, DELETE
	CalendarID  string
	EventID     string
	SendUpdates string
}

// calendarData is the fake's Calendar v3 state; Server.mu guards it.
type calendarData struct {
	events   map[string][]CalendarEvent // by calendar id; "primary" always exists
	deleted  map[string]bool            // calendarID/eventID of deleted events (410 on a second delete)
	writes   []CalendarWrite
	next     int
	pageSize int // the most events a list page holds; 0: as asked
}

func newCalendarData() *calendarData {
	return &calendarData{events: map[string][]CalendarEvent{"primary": nil}, deleted: map[string]bool{}}
}

// AddEvent seeds an event into calendarID ("primary" for the owner's own)
// and returns its id (ev.ID when set).
func (s *Server) AddEvent(calendarID string, ev CalendarEvent) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ev.ID == "" {
		ev.ID = s.cal.newID()
	}
	ev.Attendees = slices.Clone(ev.Attendees)
	s.cal.events[calendarID] = append(s.cal.events[calendarID], ev)
	return ev.ID
}

// Events returns calendarID's events ordered by start.
func (s *Server) Events(calendarID string) []CalendarEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]CalendarEvent, 0, len(s.cal.events[calendarID]))
	for _, ev := range s.cal.events[calendarID] {
		ev.Attendees = slices.Clone(ev.Attendees)
		out = append(out, ev)
	}
	sortEvents(out)
	return out
}

// CalendarWrites returns the changes clients made to events, in order.
func (s *Server) CalendarWrites() []CalendarWrite {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.cal.writes)
}

// CalendarPageSize makes event lists hold at most n events a page, however
// many the client asks for: Google may answer short pages, and a client
// must follow nextPageToken.
func (s *Server) CalendarPageSize(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cal.pageSize = n
}

// newID returns an id in Google's alphabet (base32hex: a-v, 0-9).
func (c *calendarData) newID() string {
	c.next++
	return fmt.Sprintf("evt%05d", c.next)
}

func sortEvents(evs []CalendarEvent) {
	slices.SortStableFunc(evs, func(a, b CalendarEvent) int {
		if c := a.Start.Compare(b.Start); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// calendarRoutes serves Calendar v3 below /calendar/v3/.
func (s *Server) calendarRoutes(mux *http.ServeMux) {
	const base = "/calendar/v3/calendars/{cal}/events"
	mux.HandleFunc("GET "+base, s.listEvents)
	mux.HandleFunc("POST "+base, s.insertEvent)
	mux.HandleFunc("GET "+base+"/{id}", s.getEvent)
	mux.HandleFunc("PATCH "+base+"/{id}", s.changeEvent)
	mux.HandleFunc("PUT "+base+"/{id}", s.changeEvent)
	mux.HandleFunc("DELETE "+base+"/{id}", s.deleteEvent)
	mux.HandleFunc("POST /calendar/v3/freeBusy", s.freeBusy)
}

// Wire shapes of Calendar v3, the fields the fake keeps.
type calDateTime struct {
	Date     string `json:"date,omitempty"`
	DateTime string `json:"dateTime,omitempty"`
	TimeZone string `json:"timeZone,omitempty"`
}

type calPerson struct {
	Email       string `json:"email,omitempty"`
	DisplayName string `json:"displayName,omitempty"`
	Self        bool   `json:"self,omitempty"`
}

type calAttendee struct {
	Email          string `json:"email,omitempty"`
	DisplayName    string `json:"displayName,omitempty"`
	ResponseStatus string `json:"responseStatus,omitempty"`
	Self           bool   `json:"self,omitempty"`
	Organizer      bool   `json:"organizer,omitempty"`
	Optional       bool   `json:"optional,omitempty"`
}

type calEvent struct {
	Kind         string        `json:"kind"`
	ID           string        `json:"id"`
	Status       string        `json:"status"`
	HTMLLink     string        `json:"htmlLink"`
	ICalUID      string        `json:"iCalUID"`
	EventType    string        `json:"eventType"`
	Summary      string        `json:"summary,omitempty"`
	Description  string        `json:"description,omitempty"`
	Location     string        `json:"location,omitempty"`
	Start        calDateTime   `json:"start"`
	End          calDateTime   `json:"end"`
	Attendees    []calAttendee `json:"attendees,omitempty"`
	Organizer    calPerson     `json:"organizer"`
	Creator      calPerson     `json:"creator"`
	Transparency string        `json:"transparency,omitempty"`
}

func eventToWire(calID string, ev CalendarEvent) calEvent {
	w := calEvent{
		Kind: "calendar#event", ID: ev.ID, Status: "confirmed", EventType: "default",
		HTMLLink: "https://www.google.com/calendar/event?eid=" + ev.ID,
		ICalUID:  ev.ID + "@google.com",
		Summary:  ev.Summary, Description: ev.Description, Location: ev.Location,
		Start: eventWireTime(ev.Start, ev.AllDay, ev.TimeZone), End: eventWireTime(ev.End, ev.AllDay, ev.TimeZone),
	}
	org := ev.Organizer
	if org == "" {
		org = calendarOwnerOf(calID)
	}
	w.Organizer = calPerson{Email: org, Self: org == calendarOwnerOf(calID)}
	w.Creator = w.Organizer
	for _, a := range ev.Attendees {
		w.Attendees = append(w.Attendees, calAttendee(a))
	}
	if ev.Transparent {
		w.Transparency = "transparent"
	}
	return w
}

// calendarOwnerOf is whose calendar calID is, as Google names it.
func calendarOwnerOf(calID string) string {
	if calID == "primary" {
		return CalendarOwner
	}
	return calID
}

func eventWireTime(t time.Time, allDay bool, tz string) calDateTime {
	if allDay {
		return calDateTime{Date: t.Format(time.DateOnly)}
	}
	return calDateTime{DateTime: t.Format(time.RFC3339), TimeZone: tz}
}

// eventTime reads an event's start or end; all-day dates are read in the
// event's zone, else UTC.
func eventTime(w calDateTime, field string) (time.Time, bool, error) {
	loc := time.UTC
	if w.TimeZone != "" {
		l, err := time.LoadLocation(w.TimeZone)
		if err != nil {
			return time.Time{}, false, fmt.Errorf("Invalid time zone definition for %s time.", field)
		}
		loc = l
	}
	switch {
	case w.Date != "" && w.DateTime != "":
		return time.Time{}, false, fmt.Errorf("Invalid %s time: date and dateTime are both set.", field)
	case w.Date != "":
		t, err := time.ParseInLocation(time.DateOnly, w.Date, loc)
		if err != nil {
			return time.Time{}, false, fmt.Errorf("Invalid %s time.", field)
		}
		return t, true, nil
	case w.DateTime != "":
		if t, err := time.Parse(time.RFC3339, w.DateTime); err == nil {
			return t, false, nil
		}
		// Without an offset the time is read in timeZone, which must then be given.
		if w.TimeZone != "" {
			if t, err := time.ParseInLocation("2006-01-02T15:04:05", w.DateTime, loc); err == nil {
				return t, false, nil
			}
		}
		return time.Time{}, false, fmt.Errorf("Invalid %s time.", field)
	}
	return time.Time{}, false, fmt.Errorf("Missing %s time.", field)
}

// calQueryTime reads a timeMin / timeMax parameter: RFC 3339 with an offset.
func calQueryTime(r *http.Request, name string) (time.Time, bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return time.Time{}, false, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("Bad Request: invalid %s %q", name, v)
	}
	return t, true, nil
}

func (s *Server) listEvents(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	calID := r.PathValue("cal")
	tmin, hasMin, err := calQueryTime(r, "timeMin")
	if err != nil {
		Error(w, http.StatusBadRequest, err.Error())
		return
	}
	tmax, hasMax, err := calQueryTime(r, "timeMax")
	if err != nil {
		Error(w, http.StatusBadRequest, err.Error())
		return
	}
	if hasMin && hasMax && !tmax.After(tmin) {
		Error(w, http.StatusBadRequest, "The specified time range is empty.")
		return
	}
	if ob := q.Get("orderBy"); ob != "" && ob != "startTime" && ob != "updated" {
		Error(w, http.StatusBadRequest, "Invalid value for orderBy: "+ob)
		return
	} else if ob == "startTime" && q.Get("singleEvents") != "true" {
		Error(w, http.StatusBadRequest, "The requested ordering is not available for the particular query.")
		return
	}
	maxResults := 0
	if v := q.Get("maxResults"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 2500 {
			Error(w, http.StatusBadRequest, "Invalid value for maxResults: "+v)
			return
		}
		maxResults = n
	}
	words := strings.Fields(strings.ToLower(q.Get("q")))

	s.mu.Lock()
	evs, ok := s.cal.events[calID]
	if !ok {
		s.mu.Unlock()
		Error(w, http.StatusNotFound, "Not Found")
		return
	}
	var match []CalendarEvent
	for _, ev := range evs {
		// timeMin bounds the end and timeMax the start, both exclusive.
		if (hasMin && !ev.End.After(tmin)) || (hasMax && !ev.Start.Before(tmax)) || !eventMatches(ev, words) {
			continue
		}
		ev.Attendees = slices.Clone(ev.Attendees)
		match = append(match, ev)
	}
	if s.cal.pageSize > 0 && (maxResults == 0 || maxResults > s.cal.pageSize) {
		maxResults = s.cal.pageSize
	}
	s.mu.Unlock()
	sortEvents(match)

	items, next, err := page(match, q.Get("pageToken"), maxResults, calendarDefaultPage)
	if err != nil {
		Error(w, http.StatusBadRequest, err.Error())
		return
	}
	out := map[string]any{
		"kind": "calendar#events", "summary": calendarOwnerOf(calID), "timeZone": "UTC",
		"accessRole": "owner", "updated": "2026-01-01T00:00:00.000Z", "items": []calEvent{},
	}
	wire := make([]calEvent, 0, len(items))
	for _, ev := range items {
		wire = append(wire, eventToWire(calID, ev))
	}
	out["items"] = wire
	if next != "" {
		out["nextPageToken"] = next
	}
	writeJSON(w, http.StatusOK, out)
}

// eventMatches reports whether every word of a free-text query is found in
// the event's text or its guests, as Google's q does.
func eventMatches(ev CalendarEvent, words []string) bool {
	var b strings.Builder
	b.WriteString(ev.Summary + " " + ev.Description + " " + ev.Location)
	for _, a := range ev.Attendees {
		b.WriteString(" " + a.Email + " " + a.DisplayName)
	}
	text := strings.ToLower(b.String())
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// findEvent returns the index of calID's event id, or -1 after answering 404
// (or 410 for one that was deleted).
func (s *Server) findEvent(w http.ResponseWriter, calID, id string) int {
	for i, ev := range s.cal.events[calID] {
		if ev.ID == id {
			return i
		}
	}
	if s.cal.deleted[calID+"/"+id] {
		Error(w, http.StatusGone, "Resource has been deleted")
	} else {
		Error(w, http.StatusNotFound, "Not Found")
	}
	return -1
}

func (s *Server) getEvent(w http.ResponseWriter, r *http.Request) {
	calID := r.PathValue("cal")
	s.mu.Lock()
	i := s.findEvent(w, calID, r.PathValue("id"))
	if i < 0 {
		s.mu.Unlock()
		return
	}
	ev := eventToWire(calID, s.cal.events[calID][i])
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, ev)
}

// sendUpdatesParam reads the sendUpdates parameter (Google's values only).
func sendUpdatesParam(r *http.Request) (string, error) {
	v := r.URL.Query().Get("sendUpdates")
	switch v {
	case "", "all", "externalOnly", "none":
		return v, nil
	}
	return "", fmt.Errorf("Invalid value for sendUpdates: %s", v)
}

// applyEventFields sets on ev the fields the body carries: all of them for an
// update (PUT), those present for a patch. Lists replace, as in Google's
// patch semantics.
func applyEventFields(calID string, ev *CalendarEvent, body map[string]json.RawMessage) error {
	str := func(key string, dst *string) error {
		if raw, ok := body[key]; ok {
			*dst = ""
			if err := json.Unmarshal(raw, dst); err != nil && string(raw) != "null" {
				return fmt.Errorf("Invalid value for %s.", key)
			}
		}
		return nil
	}
	for key, dst := range map[string]*string{"summary": &ev.Summary, "description": &ev.Description, "location": &ev.Location} {
		if err := str(key, dst); err != nil {
			return err
		}
	}
	if raw, ok := body["transparency"]; ok {
		var t string
		_ = json.Unmarshal(raw, &t) // a wrong type reads as opaque
		ev.Transparent = t == "transparent"
	}
	if raw, ok := body["attendees"]; ok {
		var as []calAttendee
		if err := json.Unmarshal(raw, &as); err != nil {
			return fmt.Errorf("Invalid attendees.")
		}
		ev.Attendees = nil
		for _, a := range as {
			if !strings.Contains(a.Email, "@") {
				return fmt.Errorf("Invalid attendee email.")
			}
			if a.ResponseStatus == "" {
				a.ResponseStatus = "needsAction"
			}
			a.Self = strings.EqualFold(a.Email, calendarOwnerOf(calID))
			ev.Attendees = append(ev.Attendees, CalendarAttendee(a))
		}
	}
	for _, f := range []struct {
		key string
		dst *time.Time
	}{{"start", &ev.Start}, {"end", &ev.End}} {
		raw, ok := body[f.key]
		if !ok {
			continue
		}
		var wt calDateTime
		if err := json.Unmarshal(raw, &wt); err != nil {
			return fmt.Errorf("Invalid %s time.", f.key)
		}
		t, allDay, err := eventTime(wt, f.key)
		if err != nil {
			return err
		}
		*f.dst, ev.AllDay = t, allDay
		if wt.TimeZone != "" {
			ev.TimeZone = wt.TimeZone
		}
	}
	if ev.Start.IsZero() || ev.End.IsZero() {
		return fmt.Errorf("Missing end time.")
	}
	if !ev.End.After(ev.Start) {
		return fmt.Errorf("The specified time range is empty.")
	}
	return nil
}

func eventBody(r *http.Request) (map[string]json.RawMessage, error) {
	var body map[string]json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("Parse Error")
	}
	return body, nil
}

// eventWrite reads what a write asks besides its path: sendUpdates and,
// withBody, the event's fields. A request it cannot read is answered 400
// and ok is false.
func eventWrite(w http.ResponseWriter, r *http.Request, withBody bool) (su string, body map[string]json.RawMessage, ok bool) {
	su, err := sendUpdatesParam(r)
	if err == nil && withBody {
		body, err = eventBody(r)
	}
	if err != nil {
		Error(w, http.StatusBadRequest, err.Error())
		return "", nil, false
	}
	return su, body, true
}

func (s *Server) insertEvent(w http.ResponseWriter, r *http.Request) {
	calID := r.PathValue("cal")
	su, body, ok := eventWrite(w, r, true)
	if !ok {
		return
	}
	var ev CalendarEvent
	if err := applyEventFields(calID, &ev, body); err != nil {
		Error(w, http.StatusBadRequest, err.Error())
		return
	}
	s.mu.Lock()
	if _, ok := s.cal.events[calID]; !ok {
		s.mu.Unlock()
		Error(w, http.StatusNotFound, "Not Found")
		return
	}
	ev.ID = s.cal.newID()
	s.cal.events[calID] = append(s.cal.events[calID], ev)
	s.cal.writes = append(s.cal.writes, CalendarWrite{Method: r.Method, CalendarID: calID, EventID: ev.ID, SendUpdates: su})
	out := eventToWire(calID, ev)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// changeEvent serves patch (PATCH: the fields sent) and update (PUT: the
// whole event).
func (s *Server) changeEvent(w http.ResponseWriter, r *http.Request) {
	s.writeEvent(w, r, true, func(calID string, i int, body map[string]json.RawMessage) bool {
		ev := s.cal.events[calID][i]
		ev.Attendees = slices.Clone(ev.Attendees)
		if r.Method == http.MethodPut {
			ev = CalendarEvent{ID: ev.ID, Organizer: ev.Organizer}
		}
		if err := applyEventFields(calID, &ev, body); err != nil {
			Error(w, http.StatusBadRequest, err.Error())
			return false
		}
		s.cal.events[calID][i] = ev
		writeJSON(w, http.StatusOK, eventToWire(calID, ev))
		return true
	})
}

func (s *Server) deleteEvent(w http.ResponseWriter, r *http.Request) {
	s.writeEvent(w, r, false, func(calID string, i int, _ map[string]json.RawMessage) bool {
		id := s.cal.events[calID][i].ID
		s.cal.events[calID] = slices.Delete(s.cal.events[calID], i, i+1)
		s.cal.deleted[calID+"/"+id] = true
		w.WriteHeader(http.StatusNoContent)
		return true
	})
}

// writeEvent serves a write to the event the path names: it reads the
// request, finds the event (the i-th of its calendar) and, holding s.mu,
// lets change answer; a change that says it was done is recorded.
func (s *Server) writeEvent(w http.ResponseWriter, r *http.Request, withBody bool, change func(calID string, i int, body map[string]json.RawMessage) bool) {
	calID, id := r.PathValue("cal"), r.PathValue("id")
	su, body, ok := eventWrite(w, r, withBody)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.findEvent(w, calID, id)
	if i < 0 {
		return
	}
	if change(calID, i, body) {
		s.cal.writes = append(s.cal.writes, CalendarWrite{Method: r.Method, CalendarID: calID, EventID: id, SendUpdates: su})
	}
}

// freeBusy answers freebusy.query: per calendar, the busy periods (opaque
// events the owner has not declined) within the range, clipped to it.
func (s *Server) freeBusy(w http.ResponseWriter, r *http.Request) {
	var req struct {
		TimeMin string `json:"timeMin"`
		TimeMax string `json:"timeMax"`
		Items   []struct {
			ID string `json:"id"`
		} `json:"items"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		Error(w, http.StatusBadRequest, "Parse Error")
		return
	}
	tmin, err1 := time.Parse(time.RFC3339, req.TimeMin)
	tmax, err2 := time.Parse(time.RFC3339, req.TimeMax)
	switch {
	case err1 != nil:
		Error(w, http.StatusBadRequest, "Bad Request: invalid timeMin")
		return
	case err2 != nil:
		Error(w, http.StatusBadRequest, "Bad Request: invalid timeMax")
		return
	case !tmax.After(tmin):
		Error(w, http.StatusBadRequest, "The specified time range is empty.")
		return
	}
	type period struct {
		Start string `json:"start"`
		End   string `json:"end"`
	}
	cals := map[string]any{}
	s.mu.Lock()
	for _, it := range req.Items {
		evs, ok := s.cal.events[it.ID]
		if !ok {
			cals[it.ID] = map[string]any{"busy": []period{}, "errors": []map[string]string{{"domain": "global", "reason": "notFound"}}}
			continue
		}
		busy := []period{}
		sorted := slices.Clone(evs)
		sortEvents(sorted)
		for _, ev := range sorted {
			if ev.Transparent || ownerDeclined(ev) || !ev.End.After(tmin) || !ev.Start.Before(tmax) {
				continue
			}
			start, end := calLater(ev.Start, tmin), calEarlier(ev.End, tmax)
			busy = append(busy, period{start.UTC().Format(time.RFC3339), end.UTC().Format(time.RFC3339)})
		}
		cals[it.ID] = map[string]any{"busy": busy}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"kind": "calendar#freeBusy", "timeMin": tmin.UTC().Format(time.RFC3339),
		"timeMax": tmax.UTC().Format(time.RFC3339), "calendars": cals,
	})
}

func ownerDeclined(ev CalendarEvent) bool {
	for _, a := range ev.Attendees {
		if a.Self && a.ResponseStatus == "declined" {
			return true
		}
	}
	return false
}

func calLater(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func calEarlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
