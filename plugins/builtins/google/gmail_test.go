package google

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakegoogle"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/native"
)

// The owner lives one hour east of UTC in these tests: times shown in
// UTC would be an hour off.
var (
	ownerZone = time.FixedZone("CET", 3600)
	mailDay   = time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC) // Thu 3 Dec 09:00 for the owner
)

// gmailFake starts a fake Google and the Gmail tools against it, through
// a signed-in client that retries as the real one does.
func gmailFake(t *testing.T, opts ...fakegoogle.Option) (*fakegoogle.Server, map[string]native.Tool) {
	t.Helper()
	srv := fakegoogle.New(t, opts...)
	return srv, ToolMap(GmailTools(Options{HTTPClient: SignedIn(nil), Endpoint: srv.URL, Location: ownerZone, Now: func() time.Time { return mailDay }}))
}

func call(t *testing.T, tools map[string]native.Tool, name string, args any) (string, error) {
	t.Helper()
	tool, ok := tools[name]
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return tool.Run(context.Background(), raw)
}

func mustCall(t *testing.T, tools map[string]native.Tool, name string, args any) string {
	t.Helper()
	out, err := call(t, tools, name, args)
	if err != nil {
		t.Fatalf("%s(%v): %v", name, args, err)
	}
	return out
}

func contains(t *testing.T, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("result lacks %q:\n%s", w, out)
		}
	}
}

func lacks(t *testing.T, out string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(out, w) {
			t.Errorf("result has %q:\n%s", w, out)
		}
	}
}

func TestGmailTools_TiersAndSchemas_P6(t *testing.T) {
	want := map[string]catalog.Tier{
		"search_mail": catalog.TierSafe, "read_message": catalog.TierSafe, "read_thread": catalog.TierSafe,
		"draft_mail": catalog.TierMonitor, "label": catalog.TierMonitor, "archive": catalog.TierMonitor,
		"send_mail": catalog.TierAsk, "reply": catalog.TierAsk,
	}
	checkTools(t, GmailTools(Options{}), want)
}

func TestGmailSearch_DefaultIsInboxNewestFirst_P6(t *testing.T) {
	srv, tools := gmailFake(t)
	older := srv.AddMessage(fakegoogle.Message{From: "Ann Lee <ann@example.com>", To: fakegoogle.DefaultMailAddress,
		Subject: "Lunch on Friday", Date: mailDay.Add(-24 * time.Hour), Plain: "Shall we go to the Italian place? It's my turn.", Labels: []string{"INBOX"}})
	newer := srv.AddMessage(fakegoogle.Message{From: "bob@example.com", To: fakegoogle.DefaultMailAddress,
		Subject: "Build failed", Date: mailDay, Plain: "The nightly build failed again.", Labels: []string{"INBOX", "UNREAD"}})
	srv.AddMessage(fakegoogle.Message{From: "news@example.com", Subject: "Archived newsletter", Date: mailDay, Plain: "old", Labels: nil})
	srv.AddMessage(fakegoogle.Message{From: "spam@example.com", Subject: "You won", Date: mailDay, Plain: "prize", Labels: []string{"INBOX", "SPAM"}})

	out := mustCall(t, tools, "search_mail", map[string]any{})
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a heading and 2 messages, got:\n%s", out)
	}
	contains(t, lines[1], "1. Thu 3 Dec 2026 09:00", "bob@example.com", "Build failed", "The nightly build failed again.", "[unread]", "id "+newer, "thread "+newer)
	contains(t, lines[2], "2. Wed 2 Dec 2026 09:00", "Ann Lee <ann@example.com>", "Lunch on Friday", "It's my turn", "id "+older)
	lacks(t, lines[2], "[unread]", "&#39;")
	lacks(t, out, "Archived newsletter", "You won", "page_token")
}

func TestGmailSearch_Query_P6(t *testing.T) {
	srv, tools := gmailFake(t)
	srv.SetMailClock(clock.NewFake(mailDay))
	srv.AddMessage(fakegoogle.Message{From: "Ann Lee <ann@example.com>", Subject: "Invoice 42", Date: mailDay, Plain: "Please pay by Monday.", Labels: []string{"INBOX", "UNREAD", "Receipts"}})
	srv.AddMessage(fakegoogle.Message{From: "bob@example.com", Subject: "Holiday photos", Date: mailDay.Add(-time.Hour), Plain: "From the lake.", Labels: []string{"INBOX"}})
	srv.AddMessage(fakegoogle.Message{From: "carol@example.com", Subject: "Old invoice", Date: mailDay.Add(-48 * time.Hour), Plain: "Paid.", Labels: []string{"Receipts"}})
	for _, tc := range []struct{ query, want, not string }{
		{"is:unread", "Invoice 42", "Holiday photos"},
		{"from:bob", "Holiday photos", "Invoice 42"},
		{"subject:invoice", "Old invoice", "Holiday photos"},
		{"label:receipts -is:unread", "Old invoice", "Invoice 42"},
		{"lake", "Holiday photos", "Invoice"},
		{"newer_than:1d", "Holiday photos", "Old invoice"},
		{"older_than:1d", "Old invoice", "Holiday photos"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			out := mustCall(t, tools, "search_mail", map[string]any{"query": tc.query})
			contains(t, out, tc.want, fmt.Sprintf("%q", tc.query))
			lacks(t, out, tc.not)
		})
	}
	out := mustCall(t, tools, "search_mail", map[string]any{"query": "from:nobody"})
	contains(t, out, `No mail matches "from:nobody"`)
}

func TestGmailSearch_PagesThroughAllMail_P6(t *testing.T) {
	srv, tools := gmailFake(t)
	want := map[string]bool{}
	for i := range 12 {
		id := srv.AddMessage(fakegoogle.Message{From: "list@example.com", Subject: fmt.Sprintf("Digest %d", i),
			Date: mailDay.Add(-time.Duration(i) * time.Hour), Plain: "news", Labels: []string{"INBOX"}})
		want[id] = true
	}
	idRe := regexp.MustCompile(`\(id (\S+),`)
	tokenRe := regexp.MustCompile(`page_token "([^"]+)"`)
	seen := map[string]bool{}
	token := ""
	for page := 0; ; page++ {
		if page > 5 {
			t.Fatal("paging does not end")
		}
		out := mustCall(t, tools, "search_mail", map[string]any{"limit": 5, "page_token": token})
		ids := idRe.FindAllStringSubmatch(out, -1)
		if len(ids) > 5 {
			t.Errorf("page %d has %d messages, limit 5", page, len(ids))
		}
		for _, m := range ids {
			if seen[m[1]] {
				t.Errorf("message %s shown twice", m[1])
			}
			seen[m[1]] = true
		}
		next := tokenRe.FindStringSubmatch(out)
		if next == nil {
			break
		}
		token = next[1]
	}
	if len(seen) != len(want) {
		t.Errorf("saw %d messages over the pages, want %d", len(seen), len(want))
	}
}

func TestGmailReadMessage_PlainTextAndAttachmentsListed_P6(t *testing.T) {
	srv, tools := gmailFake(t)
	id := srv.AddMessage(fakegoogle.Message{
		From: "Ann Lee <ann@example.com>", To: fakegoogle.DefaultMailAddress, Cc: "bob@example.com",
		Subject: "Contract draft", Date: mailDay, Labels: []string{"INBOX", "UNREAD"},
		Plain: "Hi,\r\n\r\nthe contract is attached.\r\n\r\n\r\n\r\nAnn",
		HTML:  "<p>Hi,</p><p>the contract is <b>attached</b>.</p>",
		Attachments: []fakegoogle.Attachment{
			{Name: "contract.pdf", Type: "application/pdf", Data: make([]byte, 25_000)},
			{Name: "notes.txt", Type: "text/plain", Data: []byte("do not read me")},
		},
	})
	out := mustCall(t, tools, "read_message", map[string]any{"message_id": id})
	contains(t, out, "From: Ann Lee <ann@example.com>", "To: "+fakegoogle.DefaultMailAddress, "Cc: bob@example.com",
		"Date: Thu 3 Dec 2026 09:00", "Subject: Contract draft", "[unread]",
		"1. contract.pdf (application/pdf, 25 KB)", "2. notes.txt (text/plain, 14 bytes)",
		"Hi,\n\nthe contract is attached.\n\nAnn")
	lacks(t, out, "do not read me", "<b>", "\r")
	for _, r := range srv.Requests() {
		if strings.Contains(r, "/attachments/") {
			t.Errorf("an attachment was downloaded: %s", r)
		}
	}
}

func TestGmailReadMessage_HTMLOnlyReadAsText_P6(t *testing.T) {
	srv, tools := gmailFake(t)
	id := srv.AddMessage(fakegoogle.Message{
		From: "shop@example.com", Subject: "Your order", Date: mailDay, Labels: []string{"INBOX"},
		HTML: `<html><head><title>Order</title><style>p { color: red }</style><script>track()</script></head>
<body><h1>Thanks   for your
order!</h1><p>Your parcel ships <b>today</b>.<br>Tracking: <a href="https://track.example.com/123">follow it here</a></p>
<ul><li>Tea &amp; cups</li><li>Kettle</li></ul><div>Questions? <a href="mailto:help@example.com">help@example.com</a></div></body></html>`,
	})
	out := mustCall(t, tools, "read_message", map[string]any{"message_id": id})
	body := out[strings.Index(out, "\n\n")+2:]
	want := "Thanks for your order!\n\nYour parcel ships today.\nTracking: follow it here (https://track.example.com/123)\n\n- Tea & cups\n- Kettle\nQuestions? help@example.com"
	if body != want {
		t.Errorf("html read as\n%q\nwant\n%q", body, want)
	}
	lacks(t, out, "<", "color: red", "track()", "&amp;")
}

func TestGmailReadMessage_OtherCharsetReadAsUTF8_P6(t *testing.T) {
	srv, tools := gmailFake(t)
	id := srv.AddMessage(fakegoogle.Message{
		From: "=?ISO-8859-1?Q?J=F6rg_M=FCller?= <joerg@example.com>", Subject: "=?ISO-8859-1?Q?Gr=FC=DFe?=", Date: mailDay,
		Charset: "ISO-8859-1", Plain: "Sch\xf6ne Gr\xfc\xdfe aus K\xf6ln",
	})
	out := mustCall(t, tools, "read_message", map[string]any{"message_id": id})
	contains(t, out, "From: Jörg Müller <joerg@example.com>", "Subject: Grüße", "Schöne Grüße aus Köln")
}

func TestGmailReadMessage_LongBodyClipped_P6(t *testing.T) {
	srv, tools := gmailFake(t)
	id := srv.AddMessage(fakegoogle.Message{From: "a@example.com", Subject: "Long", Date: mailDay, Plain: strings.Repeat("word ", 5000)})
	out := mustCall(t, tools, "read_message", map[string]any{"message_id": id})
	if len(out) > native.MaxResult {
		t.Errorf("result is %d bytes, more than %d", len(out), native.MaxResult)
	}
	contains(t, out, "more characters not shown")
}

func TestGmailReadThread_OldestFirstQuotesLeftOut_P6(t *testing.T) {
	srv, tools := gmailFake(t)
	first := srv.AddMessage(fakegoogle.Message{From: "ann@example.com", To: fakegoogle.DefaultMailAddress, Subject: "Dinner",
		Date: mailDay.Add(-2 * time.Hour), Plain: "Dinner at eight?"})
	// Added out of order: the thread is still read oldest first.
	srv.AddMessage(fakegoogle.Message{From: "ann@example.com", To: fakegoogle.DefaultMailAddress, Subject: "Re: Dinner", Thread: first,
		Date: mailDay, Plain: "Great, see you.\n\nOn Thu, Owner wrote:\n> Eight works.\n>> Dinner at eight?", Labels: []string{"INBOX", "UNREAD"}})
	srv.AddMessage(fakegoogle.Message{From: fakegoogle.DefaultMailAddress, To: "ann@example.com", Subject: "Re: Dinner", Thread: first,
		Date: mailDay.Add(-time.Hour), Plain: "Eight works.\n\n> Dinner at eight?", Labels: []string{"SENT"}})

	out := mustCall(t, tools, "read_thread", map[string]any{"thread_id": first})
	contains(t, out, `"Dinner", 3 messages`, "Dinner at eight?", "Eight works.", "Great, see you.", "[unread]")
	if a, b, c := strings.Index(out, "Dinner at eight?"), strings.Index(out, "Eight works."), strings.Index(out, "Great, see you."); !(a < b && b < c) {
		t.Errorf("not oldest first:\n%s", out)
	}
	lacks(t, out, ">", "wrote:")
	if n := strings.Count(out, "Dinner at eight?"); n != 1 {
		t.Errorf("the first mail's words appear %d times:\n%s", n, out)
	}

	out = mustCall(t, tools, "read_thread", map[string]any{"thread_id": first, "limit": 2})
	contains(t, out, "1 earlier messages not shown", "Eight works.", "Great, see you.")
	lacks(t, out, "Dinner at eight?")
}

// decoded reads a header of a sent mail as a person would.
func decoded(t *testing.T, m fakegoogle.Mail, name string) string {
	t.Helper()
	v, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get(name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

func TestGmailDraftMail_SavesRFC5322Draft_P6(t *testing.T) {
	srv, tools := gmailFake(t)
	out := mustCall(t, tools, "draft_mail", map[string]any{
		"to": "Jörg Müller <joerg@example.com>, bob@example.com", "cc": "carol@example.com",
		"subject": "Grüße aus Köln", "body": "Hallo Jörg,\nbis morgen.\n"})
	drafts := srv.Drafts()
	if len(drafts) != 1 || len(srv.Sent()) != 0 {
		t.Fatalf("%d drafts and %d sent, want one draft and nothing sent", len(drafts), len(srv.Sent()))
	}
	d := drafts[0]
	contains(t, out, "draft id "+d.DraftID, "not sent")
	if got := decoded(t, d, "Subject"); got != "Grüße aus Köln" {
		t.Errorf("subject %q", got)
	}
	if raw := d.Header.Get("Subject"); !strings.HasPrefix(raw, "=?utf-8?q?") {
		t.Errorf("a non-ASCII subject is sent raw: %q", raw)
	}
	if got := decoded(t, d, "To"); got != "Jörg Müller <joerg@example.com>, <bob@example.com>" {
		t.Errorf("to %q", got)
	}
	if d.Header.Get("Cc") != "<carol@example.com>" || d.Header.Get("From") != "<"+fakegoogle.DefaultMailAddress+">" {
		t.Errorf("cc %q, from %q", d.Header.Get("Cc"), d.Header.Get("From"))
	}
	if date, err := d.Header.Date(); err != nil || !date.Equal(mailDay) {
		t.Errorf("date %v, %v", date, err)
	}
	if d.Body != "Hallo Jörg,\nbis morgen.\n" {
		t.Errorf("body %q", d.Body)
	}
	if ct := d.Header.Get("Content-Type"); ct != "text/plain; charset=UTF-8" || d.Header.Get("MIME-Version") != "1.0" {
		t.Errorf("content type %q", ct)
	}
}

func TestGmailSendMail_Sends_P6(t *testing.T) {
	srv, tools := gmailFake(t)
	srv.SetMailAddress("me@example.org")
	out := mustCall(t, tools, "send_mail", map[string]any{"to": "ann@example.com", "subject": "Report", "body": "Attached below.\nRegards"})
	sent := srv.Sent()
	if len(sent) != 1 {
		t.Fatalf("%d mails sent, want 1", len(sent))
	}
	contains(t, out, "Sent to ann@example.com", `"Report"`, "message id "+sent[0].ID)
	if sent[0].Header.Get("From") != "<me@example.org>" || sent[0].Header.Get("To") != "<ann@example.com>" {
		t.Errorf("headers %v", sent[0].Header)
	}
	if sent[0].Body != "Attached below.\nRegards" {
		t.Errorf("body %q", sent[0].Body)
	}
	if got := srv.Labels(sent[0].ID); !slices.Equal(got, []string{"SENT"}) {
		t.Errorf("sent mail's labels %v", got)
	}
}

func TestGmailReply_ThreadingAndRecipients_P6(t *testing.T) {
	for _, tc := range []struct {
		name     string
		orig     fakegoogle.Message
		all      bool
		to, cc   string
		subject  string
		wantRefs string
	}{
		{
			name: "to the sender",
			orig: fakegoogle.Message{From: "Ann Lee <ann@example.com>", To: fakegoogle.DefaultMailAddress + ", bob@example.com",
				Subject: "Budget", MessageID: "<b2@example.com>", References: "<b0@example.com> <b1@example.com>"},
			to: `"Ann Lee" <ann@example.com>`, subject: "Re: Budget", wantRefs: "<b0@example.com> <b1@example.com> <b2@example.com>",
		},
		{
			name: "reply all leaves the owner out",
			orig: fakegoogle.Message{From: "ann@example.com", To: "Owner <" + strings.ToUpper(fakegoogle.DefaultMailAddress) + ">, bob@example.com",
				Cc: "carol@example.com, ann@example.com", Subject: "Re: Budget", MessageID: "<c1@example.com>"},
			all: true, to: "<ann@example.com>", cc: "<bob@example.com>, <carol@example.com>", subject: "Re: Budget", wantRefs: "<c1@example.com>",
		},
		{
			name: "to Reply-To",
			orig: fakegoogle.Message{From: "noreply@example.com", ReplyTo: "desk@example.com", To: fakegoogle.DefaultMailAddress,
				Subject: "Ticket 7", MessageID: "<t7@example.com>"},
			to: "<desk@example.com>", subject: "Re: Ticket 7", wantRefs: "<t7@example.com>",
		},
		{
			name: "the owner's own mail goes to its recipients",
			orig: fakegoogle.Message{From: fakegoogle.DefaultMailAddress, To: "dan@example.com", Cc: "erin@example.com",
				Subject: "Plans", MessageID: "<p1@example.com>", Labels: []string{"SENT"}},
			all: true, to: "<dan@example.com>", cc: "<erin@example.com>", subject: "Re: Plans", wantRefs: "<p1@example.com>",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, tools := gmailFake(t)
			first := srv.AddMessage(fakegoogle.Message{From: "x@example.com", Subject: "start", Date: mailDay.Add(-time.Hour)})
			tc.orig.Thread, tc.orig.Date = first, mailDay
			id := srv.AddMessage(tc.orig)
			out := mustCall(t, tools, "reply", map[string]any{"message_id": id, "body": "Sounds good.", "reply_all": tc.all})
			sent := srv.Sent()
			if len(sent) != 1 {
				t.Fatalf("%d mails sent", len(sent))
			}
			m := sent[0]
			if m.ThreadID != first {
				t.Errorf("reply in thread %q, want %q", m.ThreadID, first)
			}
			contains(t, out, "thread "+first)
			h := m.Header
			if h.Get("To") != tc.to || h.Get("Cc") != tc.cc || h.Get("Subject") != tc.subject {
				t.Errorf("To %q Cc %q Subject %q, want %q %q %q", h.Get("To"), h.Get("Cc"), h.Get("Subject"), tc.to, tc.cc, tc.subject)
			}
			if h.Get("In-Reply-To") != tc.orig.MessageID || h.Get("References") != tc.wantRefs {
				t.Errorf("In-Reply-To %q References %q", h.Get("In-Reply-To"), h.Get("References"))
			}
			if m.Body != "Sounds good." {
				t.Errorf("body %q", m.Body)
			}
		})
	}
}

func TestGmailCompose_HeaderInjectionRefused_P6(t *testing.T) {
	srv, tools := gmailFake(t)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"send_mail", map[string]any{"to": "ann@example.com\r\nBcc: eve@example.com", "subject": "Hi", "body": "x"}},
		{"send_mail", map[string]any{"to": "ann@example.com", "cc": "bob@example.com\nBcc: eve@example.com", "subject": "Hi", "body": "x"}},
		{"send_mail", map[string]any{"to": "ann@example.com", "subject": "Hi\r\nBcc: eve@example.com", "body": "x"}},
		{"draft_mail", map[string]any{"to": "ann@example.com", "subject": "Hi\nBcc: eve@example.com", "body": "x"}},
		{"send_mail", map[string]any{"to": "not an address", "body": "x"}},
	} {
		_, err := call(t, tools, tc.tool, tc.args)
		if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
			t.Errorf("%s %v: error %v, want EINVALID", tc.tool, tc.args, err)
		}
	}
	if len(srv.Sent())+len(srv.Drafts()) != 0 || len(srv.Requests()) != 0 {
		t.Errorf("a refused mail reached Google: %v", srv.Requests())
	}
}

func TestGmailTools_MissingArgumentsAreInvalid_P6(t *testing.T) {
	_, tools := gmailFake(t)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"read_message", map[string]any{}},
		{"read_thread", map[string]any{}},
		{"send_mail", map[string]any{"to": "ann@example.com"}},
		{"draft_mail", map[string]any{"body": "x"}},
		{"reply", map[string]any{"message_id": "1"}},
		{"label", map[string]any{"message_id": "1"}},
		{"archive", map[string]any{}},
		{"archive", map[string]any{"message_id": "1", "thread_id": "2"}},
		{"search_mail", map[string]any{"q": "wrong field"}},
	} {
		if _, err := call(t, tools, tc.tool, tc.args); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
			t.Errorf("%s %v: error %v, want EINVALID", tc.tool, tc.args, err)
		}
	}
}

func TestGmailLabel_ByName_P6(t *testing.T) {
	srv, tools := gmailFake(t)
	srv.AddLabel("Work")
	srv.AddLabel("Travel plans")
	id := srv.AddMessage(fakegoogle.Message{From: "ann@example.com", Subject: "Flights", Date: mailDay, Labels: []string{"INBOX", "UNREAD"}})
	out := mustCall(t, tools, "label", map[string]any{"message_id": id, "add": []string{"travel plans", "STARRED"}, "remove": []string{"unread"}})
	contains(t, out, "Labels of message "+id, "added travel plans, STARRED", "removed unread")
	if got := srv.Labels(id); !slices.Equal(got, []string{"INBOX", "STARRED", "Travel plans"}) {
		t.Errorf("labels %v", got)
	}

	_, err := call(t, tools, "label", map[string]any{"message_id": id, "add": []string{"Holidays"}})
	if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Fatalf("unknown label: %v, want EINVALID", err)
	}
	contains(t, err.Error(), `"Holidays"`, "Work", "Travel plans")

	reply := srv.AddMessage(fakegoogle.Message{From: "bob@example.com", Subject: "Re: Flights", Thread: id, Date: mailDay.Add(time.Hour), Labels: []string{"INBOX"}})
	mustCall(t, tools, "label", map[string]any{"thread_id": id, "add": []string{"Work"}})
	for _, m := range []string{id, reply} {
		if !slices.Contains(srv.Labels(m), "Work") {
			t.Errorf("message %s of the thread lacks Work: %v", m, srv.Labels(m))
		}
	}
}

func TestGmailArchive_RemovesInbox_P6(t *testing.T) {
	srv, tools := gmailFake(t)
	one := srv.AddMessage(fakegoogle.Message{From: "ann@example.com", Subject: "One", Date: mailDay, Labels: []string{"INBOX", "UNREAD", "Work"}})
	other := srv.AddMessage(fakegoogle.Message{From: "bob@example.com", Subject: "Two", Date: mailDay, Labels: []string{"INBOX"}})
	answer := srv.AddMessage(fakegoogle.Message{From: "carol@example.com", Subject: "Re: Two", Thread: other, Date: mailDay.Add(time.Minute), Labels: []string{"INBOX"}})

	out := mustCall(t, tools, "archive", map[string]any{"message_id": one})
	contains(t, out, "Archived message "+one)
	if got := srv.Labels(one); !slices.Equal(got, []string{"UNREAD", "Work"}) {
		t.Errorf("labels after archive %v", got)
	}
	mustCall(t, tools, "archive", map[string]any{"thread_id": other})
	for _, m := range []string{other, answer} {
		if slices.Contains(srv.Labels(m), "INBOX") {
			t.Errorf("message %s still in the inbox", m)
		}
	}
	_, err := call(t, tools, "archive", map[string]any{"message_id": "nope"})
	if jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("archive of a missing message: %v, want ENOTFOUND", err)
	}
}

func TestGmail_RateLimitedThenServed_P6(t *testing.T) {
	srv, tools := gmailFake(t)
	srv.AddMessage(fakegoogle.Message{From: "ann@example.com", Subject: "Hello", Date: mailDay, Labels: []string{"INBOX"}})
	srv.Fail(http.MethodGet, "/gmail/v1/users/me/messages", http.StatusTooManyRequests, 2)
	out := mustCall(t, tools, "search_mail", map[string]any{})
	contains(t, out, "Hello")

	// A 429 means Google did nothing, so even a send is tried again: once.
	srv.Fail(http.MethodPost, "/gmail/v1/users/me/messages/send", http.StatusTooManyRequests, 1)
	mustCall(t, tools, "send_mail", map[string]any{"to": "ann@example.com", "subject": "Hi", "body": "x"})
	if n := len(srv.Sent()); n != 1 {
		t.Errorf("%d mails sent after a 429, want 1", n)
	}
}

func TestGmailSend_ServerErrorNotRepeated_P6(t *testing.T) {
	srv, tools := gmailFake(t)
	srv.Fail(http.MethodPost, "/gmail/v1/users/me/messages/send", http.StatusInternalServerError, 1)
	_, err := call(t, tools, "send_mail", map[string]any{"to": "ann@example.com", "subject": "Hi", "body": "x"})
	if err == nil {
		t.Fatal("a send Google failed with 500 was reported as sent")
	}
	if jarvisbot.ErrorCode(err) != jarvisbot.EUNAVAILABLE {
		t.Errorf("error code %q, want EUNAVAILABLE: %v", jarvisbot.ErrorCode(err), err)
	}
	contains(t, err.Error(), "ann@example.com", "500", "Sent")
	// The fault answers one request only: a retry would have gone through.
	if n := len(srv.Sent()); n != 0 {
		t.Errorf("the mail was sent again after a 500: %d sent", n)
	}
}

func TestGmail_RefusedSignInKeepsCause_P6(t *testing.T) {
	srv, tools := gmailFake(t, fakegoogle.WithAuth(func(string) bool { return false }))
	srv.AddMessage(fakegoogle.Message{From: "ann@example.com", Subject: "Hello", Date: mailDay, Labels: []string{"INBOX"}})
	_, err := call(t, tools, "search_mail", map[string]any{})
	var ge *APIError
	if !errors.As(err, &ge) || ge.Status != http.StatusUnauthorized {
		t.Fatalf("error %v does not keep Google's 401", err)
	}
	if code := jarvisbot.ErrorCode(err); code == jarvisbot.EINVALID {
		t.Errorf("a refused sign-in is EINVALID, which tells the model to fix its arguments: %v", err)
	}
	contains(t, err.Error(), "sign in again")
}

func TestGmailSearch_FailedReadFailsThePageWithItsCause_P6(t *testing.T) {
	srv, tools := gmailFake(t)
	for i := range 8 {
		srv.AddMessage(fakegoogle.Message{From: "ann@example.com", Subject: fmt.Sprintf("Note %d", i), Date: mailDay, Labels: []string{"INBOX"}})
	}
	// The list answers; one of the reads of its messages is refused.
	srv.Fail(http.MethodGet, "/gmail/v1/users/me/messages/", http.StatusForbidden, 1)
	_, err := call(t, tools, "search_mail", map[string]any{})
	if jarvisbot.ErrorCode(err) != jarvisbot.EFORBIDDEN {
		t.Fatalf("error %v (%s), want Google's refusal (EFORBIDDEN)", err, jarvisbot.ErrorCode(err))
	}
	lacks(t, err.Error(), "canceled")
}
