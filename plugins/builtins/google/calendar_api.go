package google

import (
	"context"
	"net/url"
	"strconv"
)

// The Google Calendar API v3 calls the calendar tools make, and the parts
// of its JSON they read and write. Fields are in the order of their JSON
// names, as in Google's own client, so a request's body is the same bytes.

// event is a calendar event: what the tools show of one, and what they
// create (title, place, notes, times) or patch (times, attendees).
type event struct {
	Attendees   []*eventAttendee `json:"attendees,omitempty"`
	Description string           `json:"description,omitempty"`
	End         *eventTime       `json:"end,omitempty"`
	ID          string           `json:"id,omitempty"`
	Location    string           `json:"location,omitempty"`
	Organizer   *eventOrganizer  `json:"organizer,omitempty"`
	Start       *eventTime       `json:"start,omitempty"`
	Summary     string           `json:"summary,omitempty"`
}

// eventTime is when an event starts or ends: Date (YYYY-MM-DD, the end
// exclusive) for an all-day event, else DateTime in RFC 3339.
type eventTime struct {
	Date     string `json:"date,omitempty"`
	DateTime string `json:"dateTime,omitempty"`
	TimeZone string `json:"timeZone,omitempty"`
}

// eventAttendee is one guest. A patch replaces the whole list, so every
// field Google gives is kept to be sent back unchanged.
type eventAttendee struct {
	AdditionalGuests int64  `json:"additionalGuests,omitempty"`
	AsyncOperation   string `json:"asyncOperation,omitempty"`
	Comment          string `json:"comment,omitempty"`
	DisplayName      string `json:"displayName,omitempty"`
	Email            string `json:"email,omitempty"`
	ID               string `json:"id,omitempty"`
	Optional         bool   `json:"optional,omitempty"`
	Organizer        bool   `json:"organizer,omitempty"`
	Resource         bool   `json:"resource,omitempty"`
	ResponseStatus   string `json:"responseStatus,omitempty"`
	Self             bool   `json:"self,omitempty"`
}

// eventOrganizer is who organizes an event; Self when it is the owner.
type eventOrganizer struct {
	Email string `json:"email,omitempty"`
	Self  bool   `json:"self,omitempty"`
}

// eventList is one page of events.list.
type eventList struct {
	Items         []*event `json:"items"`
	NextPageToken string   `json:"nextPageToken"`
}

// freeBusyRequest asks freebusy.query when calendars are busy.
type freeBusyRequest struct {
	Items    []freeBusyItem `json:"items,omitempty"`
	TimeMax  string         `json:"timeMax,omitempty"`
	TimeMin  string         `json:"timeMin,omitempty"`
	TimeZone string         `json:"timeZone,omitempty"`
}

type freeBusyItem struct {
	ID string `json:"id,omitempty"`
}

// freeBusyAnswer is freebusy.query's answer, by calendar id.
type freeBusyAnswer struct {
	Calendars map[string]freeBusyCalendar `json:"calendars"`
}

// freeBusyCalendar is one calendar's busy periods (RFC 3339), or the
// reasons it could not be read (notFound).
type freeBusyCalendar struct {
	Busy []struct {
		Start string `json:"start"`
		End   string `json:"end"`
	} `json:"busy"`
	Errors []struct {
		Domain string `json:"domain"`
		Reason string `json:"reason"`
	} `json:"errors"`
}

// calendarAPI is Google Calendar for the owner.
type calendarAPI struct{ api }

func (o Options) calendarAPI() calendarAPI {
	return calendarAPI{o.api("calendar/v3/", calendarBase)}
}

// eventsPath is the events of calendar cal, or with id one of them.
func eventsPath(cal, id string) string {
	p := "calendars/" + pathEscape(cal) + "/events"
	if id != "" {
		p += "/" + pathEscape(id)
	}
	return p
}

// eventQuery is what listEvents asks for: single events (recurring ones
// expanded) overlapping [TimeMin, TimeMax), in start order.
type eventQuery struct {
	TimeMin, TimeMax string // RFC 3339
	Query            string // words to search for, "" for all
	MaxResults       int
	PageToken        string // "" for the first page
}

func (c calendarAPI) listEvents(ctx context.Context, cal string, eq eventQuery) (*eventList, error) {
	q := url.Values{
		"timeMin":      {eq.TimeMin},
		"timeMax":      {eq.TimeMax},
		"singleEvents": {"true"},
		"orderBy":      {"startTime"},
		"maxResults":   {strconv.Itoa(eq.MaxResults)},
	}
	if eq.Query != "" {
		q.Set("q", eq.Query)
	}
	if eq.PageToken != "" {
		q.Set("pageToken", eq.PageToken)
	}
	return request[eventList](ctx, c.api, "GET", eventsPath(cal, ""), q, nil)
}

func (c calendarAPI) getEvent(ctx context.Context, cal, id string) (*event, error) {
	return request[event](ctx, c.api, "GET", eventsPath(cal, id), nil, nil)
}

// sendUpdates is whom Google mails of a change: "all" guests or "none".
func sendUpdates(who string) url.Values { return url.Values{"sendUpdates": {who}} }

func (c calendarAPI) insertEvent(ctx context.Context, cal string, ev *event, notify string) (*event, error) {
	return request[event](ctx, c.api, "POST", eventsPath(cal, ""), sendUpdates(notify), ev)
}

// patchEvent changes the fields patch sets and leaves the others.
func (c calendarAPI) patchEvent(ctx context.Context, cal, id string, patch *event, notify string) (*event, error) {
	return request[event](ctx, c.api, "PATCH", eventsPath(cal, id), sendUpdates(notify), patch)
}

func (c calendarAPI) deleteEvent(ctx context.Context, cal, id, notify string) error {
	return c.do(ctx, "DELETE", eventsPath(cal, id), sendUpdates(notify), nil, nil)
}

func (c calendarAPI) freeBusy(ctx context.Context, req *freeBusyRequest) (*freeBusyAnswer, error) {
	return request[freeBusyAnswer](ctx, c.api, "POST", "freeBusy", nil, req)
}
