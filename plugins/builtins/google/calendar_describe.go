package google

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/native"
)

// The calendar tools' descriptions of their calls, for the approval
// request the owner decides on (CH2): the event by its title and its time
// in the owner's zone, read from the calendar when the call names it by id.

// zoned shows when an event happens with the zone's name, so that a phone
// in another zone is not misread: "Tue 2026-12-08 14:00–15:00 CET".
func zoned(w calWhen) string {
	if w.allDay {
		return w.String()
	}
	return w.String() + " " + w.start.Format("MST")
}

// lookEvent reads the event a call names, for its description; false when
// the calendar cannot be asked (no sign-in) or does not answer.
func (o Options) lookEvent(ctx context.Context, calID, id string) (*event, bool) {
	if o.HTTPClient == nil || strings.TrimSpace(id) == "" {
		return nil, false
	}
	ev, err := o.calendarAPI().getEvent(ctx, calendarID(calID), id)
	return ev, err == nil
}

// eventLines names an event: its title and when, or its id when it could
// not be read.
func (o Options) eventLines(ctx context.Context, calID, id string) (string, []catalog.Line, *event) {
	ev, ok := o.lookEvent(ctx, calID, id)
	if !ok {
		return "the event with id " + id, []catalog.Line{{Label: "Event", Value: id + " (its details could not be read now)"}}, nil
	}
	title := native.OneLine(ev.Summary)
	if title == "" {
		title = "(no title)"
	}
	lines := []catalog.Line{{Label: "Event", Value: title}}
	if w, ok := o.eventWhen(ev); ok {
		lines = append(lines, catalog.Line{Label: "When", Value: zoned(w)})
	}
	return fmt.Sprintf("the event %q", title), lines, ev
}

func (o Options) describeCreateEvent(_ context.Context, raw json.RawMessage) (catalog.Description, bool) {
	var a createEventArgs
	if native.Decode(raw, &a) != nil {
		return catalog.Description{}, false
	}
	ev, err := o.newEvent(a)
	if err != nil {
		return catalog.Description{}, false
	}
	d := catalog.Description{What: fmt.Sprintf("Create the event %q in your calendar", native.OneLine(ev.Summary))}
	if w, ok := o.eventWhen(ev); ok {
		d.Lines = append(d.Lines, catalog.Line{Label: "When", Value: zoned(w)})
	}
	if a.Location != "" {
		d.Lines = append(d.Lines, catalog.Line{Label: "Where", Value: a.Location})
	}
	if a.Description != "" {
		d.Lines = append(d.Lines, catalog.Line{Label: "Notes", Value: a.Description})
	}
	return d, true
}

func (o Options) describeInviteGuests(ctx context.Context, raw json.RawMessage) (catalog.Description, bool) {
	var a inviteArgs
	if native.Decode(raw, &a) != nil {
		return catalog.Description{}, false
	}
	what, lines, _ := o.eventLines(ctx, a.CalendarID, a.EventID)
	lines = append(lines, catalog.Line{Label: "Guests", Value: strings.Join(a.Emails, ", ")})
	return catalog.Description{What: "Invite guests to " + what + "; Google mails them", Lines: lines}, true
}

func (o Options) describeMoveEvent(ctx context.Context, raw json.RawMessage) (catalog.Description, bool) {
	var a moveArgs
	if native.Decode(raw, &a) != nil {
		return catalog.Description{}, false
	}
	what, lines, ev := o.eventLines(ctx, a.CalendarID, a.EventID)
	start, date, err := o.calTime("start", a.Start)
	if err != nil {
		return catalog.Description{}, false
	}
	to := calWhen{start: start, end: start, allDay: date}
	switch {
	case a.End != "":
		if to.end, _, err = o.calTime("end", a.End); err != nil {
			return catalog.Description{}, false
		}
		if date {
			to.end = calDay(to.end).AddDate(0, 0, 1)
		}
	case ev != nil:
		if was, ok := o.eventWhen(ev); ok {
			to.end = start.Add(was.end.Sub(was.start))
		}
	}
	value := zoned(to)
	if !to.end.After(to.start) {
		value = calStamp(start) + " " + start.Format("MST") // its length is kept
		if date {
			value = start.Format("Mon 2006-01-02") + ", all day"
		}
	}
	for i := range lines {
		if lines[i].Label == "When" {
			lines[i].Label = "Now"
		}
	}
	lines = append(lines, catalog.Line{Label: "Moves to", Value: value})
	lines = guestsTold(lines, ev)
	return catalog.Description{What: "Move " + what, Lines: lines}, true
}

func (o Options) describeCancelEvent(ctx context.Context, raw json.RawMessage) (catalog.Description, bool) {
	var a cancelArgs
	if native.Decode(raw, &a) != nil {
		return catalog.Description{}, false
	}
	what, lines, ev := o.eventLines(ctx, a.CalendarID, a.EventID)
	lines = guestsTold(lines, ev)
	return catalog.Description{What: "Cancel (delete) " + what, Lines: lines}, true
}

func (o Options) describeRespondToInvitation(ctx context.Context, raw json.RawMessage) (catalog.Description, bool) {
	var a respondArgs
	if native.Decode(raw, &a) != nil {
		return catalog.Description{}, false
	}
	what, lines, _ := o.eventLines(ctx, a.CalendarID, a.EventID)
	lines = append(lines, catalog.Line{Label: "Answer", Value: a.Response})
	if a.Comment != "" {
		lines = append(lines, catalog.Line{Label: "Comment", Value: a.Comment})
	}
	return catalog.Description{What: "Answer the invitation to " + what, Lines: lines}, true
}

// guestsTold adds how many guests Google tells of a change to the event,
// when it has any.
func guestsTold(lines []catalog.Line, ev *event) []catalog.Line {
	if ev != nil && eventGuests(ev) > 0 {
		lines = append(lines, catalog.Line{Label: "Guests told", Value: fmt.Sprint(eventGuests(ev))})
	}
	return lines
}
