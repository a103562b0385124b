package google

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakegoogle"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/native"
)

// flat writes a description as lines, for comparing whole.
func flat(d catalog.Description) string {
	out := []string{d.What}
	for _, l := range d.Lines {
		out = append(out, l.Label+": "+l.Value)
	}
	return strings.Join(out, "\n")
}

func describeCall(t *testing.T, tools map[string]native.Tool, name, args string) (string, bool) {
	t.Helper()
	tool, ok := tools[name]
	if !ok || tool.Describe == nil {
		t.Fatalf("%s does not describe its calls", name)
	}
	d, ok := tool.Describe(context.Background(), json.RawMessage(args))
	return flat(d), ok
}

// TestGmailDescribesCallsCH2: a mail's approval request says to whom it
// goes, its subject and its text; a reply names the sender it answers,
// read from the mail, and its subject with Re:.
func TestGmailDescribesCallsCH2(t *testing.T) {
	srv, tools := gmailFake(t)
	orig := srv.AddMessage(fakegoogle.Message{From: "Ann Lee <ann@example.com>", To: fakegoogle.DefaultMailAddress, Cc: "bob@example.com",
		Subject: "Lunch on Friday", Date: mailDay, Plain: "Italian?", Labels: []string{"INBOX"}})
	cases := []struct {
		tool, args, want string
		ok               bool
	}{
		{"send_mail", `{"to":"Ann Lee <ann@example.com>","subject":"Invoice","body":"Hi Ann,\nhere it is."}`,
			"Send a mail from your Gmail\nTo: Ann Lee <ann@example.com>\nSubject: Invoice\nText: Hi Ann,\nhere it is.", true},
		{"draft_mail", `{"to":"bob@example.com","cc":"carol@example.com","subject":"Plan","body":"Draft"}`,
			"Save a draft mail (not sent)\nTo: bob@example.com\nCc: carol@example.com\nSubject: Plan\nText: Draft", true},
		{"reply", `{"message_id":"` + orig + `","body":"Yes!"}`,
			"Send a reply from your Gmail\nTo: \"Ann Lee\" <ann@example.com>\nSubject: Re: Lunch on Friday\nText: Yes!", true},
		{"reply", `{"message_id":"` + orig + `","body":"Yes!","reply_all":true}`,
			"Send a reply to all from your Gmail\nTo: \"Ann Lee\" <ann@example.com>\nCc: <bob@example.com>\nSubject: Re: Lunch on Friday\nText: Yes!", true},
		{"reply", `{"message_id":"nosuch","body":"Yes!"}`,
			"Send a reply from your Gmail\nAnswering: message nosuch\nText: Yes!", true},
		{"archive", `{"thread_id":"t1"}`, "Archive thread t1 (out of the inbox, kept in All Mail)", true},
		{"label", `{"message_id":"m1","add":["Work"],"remove":["UNREAD"]}`, "Change the labels of message m1\nAdd: Work\nRemove: UNREAD", true},
		{"send_mail", `{"to":"a@example.com","bcc":"x"}`, "", false},
	}
	for _, c := range cases {
		got, ok := describeCall(t, tools, c.tool, c.args)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("%s %s:\ngot (%v)\n%s\nwant\n%s", c.tool, c.args, ok, got, c.want)
		}
	}
}

// TestCalendarDescribesCallsCH2: a calendar call's request names the event
// by its title and its time in the owner's zone, with the zone's name; an
// event that cannot be read is named by its id.
func TestCalendarDescribesCallsCH2(t *testing.T) {
	srv := fakegoogle.New(t)
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	now := time.Date(2026, 3, 26, 9, 30, 0, 0, berlin)
	tools := ToolMap(CalendarTools(Options{HTTPClient: SignedIn(nil), Endpoint: srv.URL, Location: berlin, Now: func() time.Time { return now }}))
	at := func(d, h, m int) time.Time { return time.Date(2026, 3, d, h, m, 0, 0, berlin) }
	dentist := srv.AddEvent("primary", fakegoogle.CalendarEvent{Summary: "Dentist", Start: at(27, 10, 0).UTC(), End: at(27, 11, 0).UTC(),
		Attendees: []fakegoogle.CalendarAttendee{{Email: "ann@example.com"}}})
	cases := []struct{ tool, args, want string }{
		{"cancel_event", `{"event_id":"` + dentist + `"}`,
			"Cancel (delete) the event \"Dentist\"\nEvent: Dentist\nWhen: Fri 2026-03-27 10:00–11:00 CET\nGuests told: 1"},
		{"move_event", `{"event_id":"` + dentist + `","start":"2026-03-30T14:00"}`,
			"Move the event \"Dentist\"\nEvent: Dentist\nNow: Fri 2026-03-27 10:00–11:00 CET\nMoves to: Mon 2026-03-30 14:00–15:00 CEST\nGuests told: 1"},
		{"invite_guests", `{"event_id":"` + dentist + `","emails":["bob@example.com"]}`,
			"Invite guests to the event \"Dentist\"; Google mails them\nEvent: Dentist\nWhen: Fri 2026-03-27 10:00–11:00 CET\nGuests: bob@example.com"},
		{"cancel_event", `{"event_id":"gone"}`,
			"Cancel (delete) the event with id gone\nEvent: gone (its details could not be read now)"},
		{"create_event", `{"title":"Lunch","start":"2026-03-27T12:30","duration_minutes":45,"location":"Canteen"}`,
			"Create the event \"Lunch\" in your calendar\nWhen: Fri 2026-03-27 12:30–13:15 CET\nWhere: Canteen"},
		{"respond_to_invitation", `{"event_id":"` + dentist + `","response":"declined","comment":"Sorry"}`,
			"Answer the invitation to the event \"Dentist\"\nEvent: Dentist\nWhen: Fri 2026-03-27 10:00–11:00 CET\nAnswer: declined\nComment: Sorry"},
	}
	for _, c := range cases {
		got, ok := describeCall(t, tools, c.tool, c.args)
		if !ok || got != c.want {
			t.Errorf("%s %s:\ngot (%v)\n%s\nwant\n%s", c.tool, c.args, ok, got, c.want)
		}
	}
	// Without a sign-in nothing is asked of Google: the id stands.
	offline := ToolMap(CalendarTools(Options{Location: berlin, Now: func() time.Time { return now }}))
	if got, _ := describeCall(t, offline, "cancel_event", `{"event_id":"`+dentist+`"}`); !strings.Contains(got, "Event: "+dentist+" (its details could not be read now)") {
		t.Errorf("without a sign-in: %s", got)
	}
}

// TestDriveDescribesUploadCH2: an upload's request names the file, where
// it goes and its text.
func TestDriveDescribesUploadCH2(t *testing.T) {
	tools := ToolMap(DriveTools(Options{}))
	got, ok := describeCall(t, tools, "upload_file", `{"name":"notes.txt","content":"line one"}`)
	if want := "Upload a new file to your Google Drive\nName: notes.txt\nFolder: the top of My Drive\nText: line one"; !ok || got != want {
		t.Errorf("got (%v)\n%s\nwant\n%s", ok, got, want)
	}
}
