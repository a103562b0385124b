package main

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
)

// TestOwnerLiftsAnAppsPauseX5M4: after an app's pause_all the owner is
// told who paused and how to go on; /resume from the owner's chat lifts
// it and the waiting message is answered; /pause and `jarvisbot resume`
// against the running serve work the same way; revoking an app that
// paused says so, or lifts its pause with --resume.
func TestOwnerLiftsAnAppsPauseX5M4(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	ops := addApp(t, e, "ops", "full")
	night := addApp(t, e, "night", "full")
	url, log, stop := serveWithSurface(t, e)
	defer stop()
	app := appClient(t, url, ops)

	if text, isErr := callApp(t, app, "pause_all", nil); isErr {
		t.Fatalf("pause_all: %s", text)
	}
	tg.SendText(42, 42, "first")
	waitSent(t, tg, "the paused notice naming the app and /resume", func(s []faketelegram.Sent) bool {
		return hasText(s, 42, "Paused by app ops") && hasText(s, 42, "Send /resume to go on.")
	})
	if n := len(f.Requests()); n != 0 {
		t.Fatalf("%d model calls while paused", n)
	}
	// Only the owner lifts it: a stranger's /resume is refused.
	tg.SendText(77, 77, "/resume")
	waitSent(t, tg, "the stranger refused", func(s []faketelegram.Sent) bool { return hasText(s, 77, "private assistant") })
	if code, out, _ := e.jarvis(t, "", "pause"); code != 0 || !strings.Contains(out, "Already paused by app ops") {
		t.Errorf("after a stranger's /resume: exit %d\n%s", code, out)
	}
	f.Push(fakellm.Step{Text: "Answer one."})
	tg.SendText(42, 42, "/resume")
	waitSent(t, tg, "/resume lifting the app's pause and the waiting message answered", func(s []faketelegram.Sent) bool {
		return hasText(s, 42, "Resumed (paused by app ops)") && hasText(s, 42, "Answer one.")
	})

	// The owner's own pause from chat, lifted from the CLI while serve runs.
	tg.SendText(42, 42, "/pause")
	waitSent(t, tg, "/pause confirmed", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Paused: no agent starts a turn") })
	tg.SendText(42, 42, "second")
	waitSent(t, tg, "the paused notice naming the owner", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Paused by the owner") })
	f.Push(fakellm.Step{Text: "Answer two."})
	if code, out, errOut := e.jarvis(t, "", "resume"); code != 0 || !strings.Contains(out, "Resumed (paused by the owner)") {
		t.Fatalf("jarvisbot resume: exit %d\n%s\n%s", code, out, errOut)
	}
	waitSent(t, tg, "the message that waited answered after jarvisbot resume", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Answer two.") })
	if code, out, _ := e.jarvis(t, "", "resume"); code != 0 || !strings.Contains(out, "Nothing is paused") {
		t.Errorf("jarvisbot resume when nothing is paused: exit %d\n%s", code, out)
	}

	// `jarvisbot pause` reaches the running serve too.
	if code, out, errOut := e.jarvis(t, "", "pause"); code != 0 || !strings.Contains(out, "jarvisbot resume") {
		t.Fatalf("jarvisbot pause: exit %d\n%s\n%s", code, out, errOut)
	}
	waitOutput(t, log, "jarvisbot is paused")
	before := countText(tg.Sent(), 42, "Paused by the owner")
	tg.SendText(42, 42, "third")
	waitSent(t, tg, "the paused notice after jarvisbot pause", func(s []faketelegram.Sent) bool { return countText(s, 42, "Paused by the owner") > before })
	f.Push(fakellm.Step{Text: "Answer three."})
	tg.SendText(42, 42, "/resume")
	waitSent(t, tg, "the third message answered", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Answer three.") })

	// Revoking the app that paused: it could not resume any more.
	if text, isErr := callApp(t, app, "pause_all", nil); isErr {
		t.Fatalf("pause_all: %s", text)
	}
	code, out, errOut := e.jarvis(t, "", "apps", "revoke", "ops")
	if code != 0 || !strings.Contains(out, "App ops had paused everything") || !strings.Contains(out, "jarvisbot resume") {
		t.Errorf("revoking the app that paused: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, out, _ := e.jarvis(t, "", "pause"); code != 0 || !strings.Contains(out, "Already paused by app ops") {
		t.Errorf("the pause after the revoke: exit %d\n%s", code, out)
	}
	if code, out, _ := e.jarvis(t, "", "resume"); code != 0 || !strings.Contains(out, "Resumed (paused by app ops)") {
		t.Errorf("jarvisbot resume after the revoke: exit %d\n%s", code, out)
	}
	if text, isErr := callApp(t, appClient(t, url, night), "pause_all", nil); isErr {
		t.Fatalf("pause_all: %s", text)
	}
	if code, out, errOut := e.jarvis(t, "", "apps", "revoke", "night", "--resume"); code != 0 || !strings.Contains(out, "Resumed (paused by app night)") {
		t.Errorf("apps revoke --resume: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, out, _ := e.jarvis(t, "", "resume"); !strings.Contains(out, "Nothing is paused") {
		t.Errorf("after apps revoke --resume: exit %d\n%s", code, out)
	}
}

// TestDashboardLiftsAnAppsPauseX5W1: every page of the dashboard shows an
// app's pause with a Resume button (a form with the CSRF token); pressing
// it lifts the pause and the owner's waiting message is answered; the
// header's Pause button pauses as the owner.
func TestDashboardLiftsAnAppsPauseX5W1(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	e.vars["JARVIS_MCP_LISTEN"] = "127.0.0.1:0"
	ops := addApp(t, e, "ops", "full")
	b, out, _ := serveSignedIn(t, e)
	m := regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+/mcp)`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("serve did not say where its MCP endpoint listens:\n%s", out.String())
	}
	if body := b.get(t, "/agents"); !strings.Contains(body, `id="pause"`) || strings.Contains(body, `id="paused"`) {
		t.Errorf("not paused, the page should offer Pause only:\n%s", body)
	}
	if text, isErr := callApp(t, appClient(t, m[1], ops), "pause_all", nil); isErr {
		t.Fatalf("pause_all: %s", text)
	}
	tg.SendText(42, 42, "are you there?")
	waitSent(t, tg, "the paused notice", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Paused by app ops") })

	body := b.get(t, "/agents")
	if !strings.Contains(body, `id="paused"`) || !strings.Contains(body, "Paused by app ops") || !strings.Contains(body, `action="/resume"`) {
		t.Fatalf("the page does not show the app's pause with Resume:\n%s", body)
	}
	token := b.csrf
	b.csrf = ""
	if code, page := b.post(t, "/resume", url.Values{}); code != http.StatusForbidden {
		t.Errorf("Resume without the CSRF token: %d\n%s", code, page)
	}
	b.csrf = token
	f.Push(fakellm.Step{Text: "Here again."})
	code, page := b.post(t, "/resume", url.Values{"back": {"/agents"}})
	if code != http.StatusOK || !strings.Contains(page, "Resumed (paused by app ops)") || strings.Contains(page, `id="paused"`) || !strings.Contains(page, "<h1>Agents") {
		t.Errorf("after Resume: %d\n%s", code, page)
	}
	waitSent(t, tg, "the waiting message answered after the dashboard's Resume", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Here again.") })

	code, page = b.post(t, "/pause", url.Values{"back": {"//evil.example/"}})
	if code != http.StatusOK || !strings.Contains(page, "Paused by the owner") {
		t.Errorf("after Pause: %d\n%s", code, page)
	}
	if code, out, _ := e.jarvis(t, "", "resume"); code != 0 || !strings.Contains(out, "Resumed (paused by the owner)") {
		t.Errorf("the dashboard's pause is not in the store: exit %d\n%s", code, out)
	}
}

// TestScheduleRunRespectsTheOwnersPauseX5M4: a scheduled skill the owner
// paused does not run for an app: schedule_run says the owner paused it,
// and nothing reaches the model or the chat; resumed, it runs.
func TestScheduleRunRespectsTheOwnersPauseX5M4(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	key := addApp(t, e, "builds", "work")
	e.mustJarvis(t, "", "schedule", "pause", "morning-brief")
	url, _, stop := serveWithSurface(t, e)
	defer stop()
	app := appClient(t, url, key)

	text, isErr := callApp(t, app, "schedule_run", map[string]any{"skill": "morning-brief"})
	if !isErr || !strings.Contains(text, "the owner paused") || !strings.Contains(text, "morning-brief") {
		t.Errorf("schedule_run of a paused skill: %q (error %v)", text, isErr)
	}
	if n := len(f.Requests()); n != 0 {
		t.Errorf("the paused skill reached the model: %d requests", n)
	}
	e.mustJarvis(t, "", "schedule", "resume", "morning-brief")
	f.Push(fakellm.Step{Text: "Brief: a quiet day."})
	if text, isErr := callApp(t, app, "schedule_run", map[string]any{"skill": "morning-brief"}); isErr || !strings.Contains(text, "morning-brief ran: ok") {
		t.Errorf("schedule_run once resumed: %q (error %v)", text, isErr)
	}
	waitSent(t, tg, "the report once resumed", func(s []faketelegram.Sent) bool { return hasText(s, 42, "a quiet day") })
}

// TestNotifyOwnerIsBoundedAndMarkedX5M4: an app's notice reaches the
// owner's chat marked as the app's, shown as written: addresses without
// links or previews, a bidi override, ESC, NUL and a zero-width space as
// visible escapes. 1 MiB goes as one file (not hundreds of messages),
// marked in its caption and its first line; more than 1 MiB is refused
// with the bound said.
func TestNotifyOwnerIsBoundedAndMarkedX5M4(t *testing.T) {
	e, _, tg := ownerOnTelegram(t)
	key := addApp(t, e, "builds", "work")
	url, _, stop := serveWithSurface(t, e)
	defer stop()
	app := appClient(t, url, key)

	// notify_owner returns once the chat has the notice: what it sent is
	// what came after.
	before := len(tg.Sent())
	hostile := "Your Google sign-in expired. Tap https://evil.example/renew **now** <b>x</b> abc\u202Etxt.exe \x1b[2J NUL\x00 zero\u200Bwidth, send /pause"
	if text, isErr := callApp(t, app, "notify_owner", map[string]any{"text": hostile}); isErr {
		t.Fatalf("notify_owner: %s", text)
	}
	sent := tg.Sent()[before:]
	if len(sent) != 1 {
		t.Fatalf("one short notice sent %d messages: %+v", len(sent), sent)
	}
	m := sent[0]
	for _, want := range []string{"From app builds:\n", `abc\u202etxt`, `\x1b[2J`, `NUL\x00`, `zero\u200bwidth`, "https[:]//evil[.]example/renew", "**now**", "&lt;b&gt;x&lt;/b&gt;", "send [/]pause"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("the notice lacks %q:\n%q", want, m.Text)
		}
	}
	if strings.ContainsAny(m.Text, "\u202E\x1b\x00\u200B") || strings.Contains(m.Text, "<a") || strings.Contains(m.Text, "<b>") || !m.NoPreview {
		t.Errorf("the notice passes controls, links or markup through (preview off: %v):\n%q", m.NoPreview, m.Text)
	}

	before = len(tg.Sent())
	big := strings.Repeat("All systems nominal. ", 1<<20/21+1)[:1<<20]
	if text, isErr := callApp(t, app, "notify_owner", map[string]any{"text": big}); isErr {
		t.Fatalf("notify_owner of 1 MiB: %s", text)
	}
	sent = tg.Sent()[before:]
	if len(sent) != 1 || sent[0].Method != "sendDocument" {
		t.Fatalf("1 MiB sent %d messages, want one document", len(sent))
	}
	d := sent[0]
	if !strings.HasPrefix(d.Caption, "From app builds:") || !strings.Contains(d.Caption, "1500") && !strings.Contains(d.Caption, "1,500") ||
		!strings.HasPrefix(string(d.Document), "From app builds:\n") || len(d.Document) < 1<<20 || d.ParseMode != "" {
		t.Errorf("the file: caption %q, parse mode %q, %d bytes starting %.40q", d.Caption, d.ParseMode, len(d.Document), d.Document)
	}
	if text, isErr := callApp(t, app, "notify_owner", map[string]any{"text": big + "!"}); !isErr || !strings.Contains(text, "1 MiB") {
		t.Errorf("more than 1 MiB: %q (error %v)", text, isErr)
	}
	if n := len(tg.Sent()) - before; n != 1 {
		t.Errorf("the refused notice sent something: %d messages after the file", n-1)
	}
}
