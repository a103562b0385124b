package main

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakegoogle"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakeoauth"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakespotify"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
)

// withGoogle points the environment at a fake Google: its authorization
// server with the owner's Desktop client (id and secret in the
// environment, as the keyring would hold them), and its APIs, which take
// only that server's live tokens.
func withGoogle(t *testing.T, e *testEnv) (*fakeoauth.AuthServer, *fakegoogle.Server) {
	t.Helper()
	as := fakeoauth.NewAuthServer(t)
	as.AddConfidentialClient("owner-desktop-client", "owner-desktop-secret")
	as.AddResource("")
	api := fakegoogle.New(t, fakegoogle.WithAuth(func(tok string) bool { _, _, ok := as.Introspect(tok); return ok }))
	e.vars["GOOGLE_OAUTH_CLIENT_ID"], e.vars["GOOGLE_OAUTH_CLIENT_SECRET"] = "owner-desktop-client", "owner-desktop-secret"
	e.vars["JARVIS_GOOGLE_AUTH_URL"], e.vars["JARVIS_GOOGLE_TOKEN_URL"] = as.URL+"/authorize", as.URL+"/token"
	e.vars["JARVIS_GOOGLE_API_ENDPOINT"] = api.URL + "/"
	e.vars["JARVIS_TIMEZONE"] = "Europe/Berlin"
	return as, api
}

// TestMorningBriefReadsCalendarAndMailP6SC1: the owner installs the
// Google plugins with one sign-in; route offers the calendar's tools for
// a calendar question, with their tiers; the shipped morning brief, run
// by schedule run and then on its 07:00 clock, calls the calendar and mail
// tools against Google's API, and the brief naming the first appointment
// reaches the owner's Telegram chat.
func TestMorningBriefReadsCalendarAndMailP6SC1(t *testing.T) {
	e := newTestEnv(t)
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	e.clock = clock.NewFake(time.Date(2026, 12, 3, 6, 59, 0, 0, berlin))
	f := withModel(t, e)
	tg := withTelegram(t, e)
	e.vars["JARVIS_TELEGRAM_OWNERS"] = "42"
	as, api := withGoogle(t, e)
	day := time.Date(2026, 12, 3, 0, 0, 0, 0, berlin)
	api.AddEvent("primary", fakegoogle.CalendarEvent{Summary: "Physiotherapy", Location: "Praxis Nord", Start: day.Add(8*time.Hour + 30*time.Minute), End: day.Add(9*time.Hour + 15*time.Minute)})
	api.AddEvent("primary", fakegoogle.CalendarEvent{Summary: "Budget review", Start: day.Add(14 * time.Hour), End: day.Add(15 * time.Hour)})
	api.AddMessage(fakegoogle.Message{From: "Mara <mara@example.org>", To: fakegoogle.DefaultMailAddress, Subject: "Can you confirm Saturday?", Date: day.Add(-2 * time.Hour), Plain: "Let me know by noon.", Labels: []string{"INBOX", "UNREAD"}})

	code, out, errOut := signInAs(t, e, as, "plugins", "install", "google-calendar", "--all-google")
	if code != 0 || !strings.Contains(out, "Signed in to Google for Gmail, Google Calendar and Google Drive") {
		t.Fatalf("install --all-google: exit %d\n%s\n%s", code, out, errOut)
	}
	_, list, _ := e.jarvis(t, "", "plugins", "list")
	for _, name := range []string{"google-calendar", "gmail", "google-drive"} {
		if !strings.Contains(list, name) || strings.Contains(list, "Needs attention") {
			t.Errorf("plugins list after one Google sign-in:\n%s", list)
		}
	}
	code, out, _ = e.jarvis(t, "", "route", "--json", "what is on my calendar this afternoon?")
	if code != 0 || !slices.Contains(decodeRoutes(t, out)[0].Tools, "plugin:google-calendar/list_events") {
		t.Errorf("route does not offer the calendar for a calendar question:\n%s", out)
	}
	if _, text, _ := e.jarvis(t, "", "catalog", "list"); !strings.Contains(text, "plugin:gmail/send_mail") || !strings.Contains(text, "ask") {
		t.Errorf("catalog list does not show Gmail's tools with their tiers:\n%s", text)
	}
	if code, out, errOut := e.jarvis(t, "", "plugins", "call", "google-calendar", "list_events", `{"from":"2026-12-03","to":"2026-12-03"}`); code != 0 || !strings.Contains(out, "Physiotherapy") || !strings.Contains(out, "08:30") {
		t.Errorf("plugins call list_events: exit %d\n%s\n%s", code, out, errOut)
	}

	brief := func() {
		f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{
			{Name: llm.WireName("plugin:google-calendar/list_events"), Input: `{"from":"2026-12-03","to":"2026-12-03"}`},
			{Name: llm.WireName("plugin:gmail/search_mail"), Input: `{"query":"is:unread"}`},
		}}, fakellm.Step{Text: "Good morning! First up: Physiotherapy at 08:30 (Praxis Nord)."})
	}
	brief()
	n := len(f.Requests())
	code, out, errOut = e.jarvis(t, "", "schedule", "run", "morning-brief")
	if code != 0 || !strings.Contains(out, "First up: Physiotherapy") {
		t.Fatalf("schedule run morning-brief: exit %d\n%s\n%s", code, out, errOut)
	}
	checkBriefTurn(t, f.Requests()[n:])
	waitSent(t, tg, "the brief in the owner's chat", func(s []faketelegram.Sent) bool { return hasText(s, 42, "First up: Physiotherapy") })

	// On its clock: serve runs, 07:00 comes, the brief is posted again.
	before := len(tg.Sent())
	brief()
	n = len(f.Requests())
	serveOut, stop := startServe(t, e)
	defer stop()
	waitOutput(t, serveOut, "jarvisbot is ready")
	waitFor(t, "the 07:00 timer", func() (bool, any) { return e.clock.Pending() > 0, e.clock.Pending() })
	e.clock.Advance(time.Minute)
	waitSent(t, tg, "the 07:00 brief", func(s []faketelegram.Sent) bool {
		return len(s) > before && hasText(s[before:], 42, "First up: Physiotherapy")
	})
	stop()
	checkBriefTurn(t, f.Requests()[n:])
}

// checkBriefTurn checks that a brief's turn offered the calendar and mail
// tools and that their results, read from the fake Google, reached the
// model.
func checkBriefTurn(t *testing.T, reqs []fakellm.Request) {
	t.Helper()
	if len(reqs) != 2 {
		t.Fatalf("the brief made %d model requests, want 2", len(reqs))
	}
	for _, id := range []string{"plugin:google-calendar/list_events", "plugin:gmail/search_mail"} {
		if !slices.Contains(reqs[0].Tools, llm.WireName(id)) {
			t.Errorf("the brief's turn was not offered %s: %v", id, reqs[0].Tools)
		}
	}
	var results strings.Builder
	for _, m := range reqs[1].Messages {
		results.WriteString(strings.Join(m.ToolResults, "\n") + "\n")
	}
	for _, want := range []string{"Physiotherapy", "08:30", "Can you confirm Saturday?"} {
		if !strings.Contains(results.String(), want) {
			t.Errorf("the tools' results did not carry %q to the model:\n%s", want, results.String())
		}
	}
}

// TestRevokedGoogleSignInRenewedFromChatP4: the owner removes jarvisbot's
// access at Google while serve runs; the next calendar call fails, the
// plugin goes under Needs attention, its tools leave the next turn, and
// the owner is told in Telegram with a Renew button; pressing it sends
// the sign-in link, and once signed in the calendar works again without
// a restart. No token reaches the chat.
func TestRevokedGoogleSignInRenewedFromChatP4(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	as, api := withGoogle(t, e)
	api.AddEvent("primary", fakegoogle.CalendarEvent{Summary: "Piano lesson", Start: e.clock.Now().Add(3 * time.Hour), End: e.clock.Now().Add(4 * time.Hour)})
	if code, out, errOut := signInAs(t, e, as, "plugins", "install", "google-calendar"); code != 0 {
		t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, s := range as.Secrets() {
		if strings.HasPrefix(s, "at-") || strings.HasPrefix(s, "rt-") {
			as.Revoke(s)
		}
	}
	out, stop := startServe(t, e)
	defer stop()
	waitOutput(t, out, "jarvisbot is ready")
	listEvents := fakellm.ToolCall{Name: llm.WireName("plugin:google-calendar/list_events")}
	f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{listEvents}}, fakellm.Step{Text: "I cannot reach your calendar right now."})
	tg.SendText(42, 42, "what is on my calendar today?")
	var notice int
	var renew string
	waitSent(t, tg, "the Needs attention notice with its button", func(s []faketelegram.Sent) bool {
		for _, m := range s {
			if m.ChatID == 42 && strings.Contains(m.Text, "Google Calendar expired or was revoked") && len(m.Buttons) > 0 {
				notice, renew = m.MessageID, m.Buttons[0][0].Data
				return true
			}
		}
		return false
	})
	if _, list, _ := e.jarvis(t, "", "plugins", "list"); !strings.Contains(list, "Needs attention:") {
		t.Errorf("plugins list does not show the calendar under Needs attention:\n%s", list)
	}
	n := len(f.Requests())
	f.Push(fakellm.Step{Text: "No calendar for now."})
	tg.SendText(42, 42, "any appointments on my calendar tomorrow?")
	waitSent(t, tg, "the answer without the calendar", func(s []faketelegram.Sent) bool { return hasText(s, 42, "No calendar for now.") })
	if reqs := f.Requests(); slices.Contains(reqs[n].Tools, listEvents.Name) {
		t.Errorf("a turn offered the calendar while its sign-in needed attention: %v", reqs[n].Tools)
	}

	tg.Press(42, 42, notice, renew)
	var link string
	waitSent(t, tg, "the sign-in link", func(s []faketelegram.Sent) bool {
		for _, m := range s {
			if i := strings.Index(m.Text, as.URL+"/authorize?"); m.ChatID == 42 && i >= 0 {
				link = strings.Fields(strings.ReplaceAll(m.Text[i:], "&amp;", "&"))[0]
				return true
			}
		}
		return false
	})
	resp, err := http.Get(as.Approve(link))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	waitSent(t, tg, "the word that the sign-in is renewed", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Signed in to google-calendar again") })
	f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{listEvents}}, fakellm.Step{Text: "Piano lesson later today."})
	n = len(f.Requests())
	tg.SendText(42, 42, "and now, what is on my calendar?")
	waitSent(t, tg, "the answer with the calendar back", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Piano lesson later today.") })
	reqs := f.Requests()
	if !slices.Contains(reqs[n].Tools, listEvents.Name) || !strings.Contains(strings.Join(reqs[n+1].Messages[len(reqs[n+1].Messages)-1].ToolResults, ""), "Piano lesson") {
		t.Errorf("after the renewal the calendar's tool was not offered or did not read the calendar")
	}
	for _, m := range tg.Sent() {
		for _, s := range as.Secrets() {
			if len(s) > 8 && strings.Contains(m.Text, s) {
				t.Errorf("a token or client secret reached the chat: %q", m.Text)
			}
		}
	}
}

// TestSpotifySignInWithAPublicClientP3P6: Spotify signs in with only the
// owner's client id (PKCE, no secret); its tools then reach the Web API
// with the sign-in's token, and the owner's words route to them.
func TestSpotifySignInWithAPublicClientP3P6(t *testing.T) {
	e := newTestEnv(t)
	as := fakeoauth.NewAuthServer(t)
	as.AddClient("owner-spotify-app")
	as.AddResource("")
	sp := fakespotify.New(t, fakespotify.WithAuth(func(tok string) bool { _, _, ok := as.Introspect(tok); return ok }))
	sp.AddDevice(fakespotify.Device{ID: "d1", Name: "Kitchen speaker", Type: "Speaker", Volume: 40, Active: true})
	sp.AddTrack(fakespotify.Track{ID: "t1", Name: "Clair de Lune", Artists: []string{"Claude Debussy"}, Album: "Suite bergamasque", DurationMs: 300000})
	sp.SetPlayback(fakespotify.Playback{Device: "d1", Track: "spotify:track:t1", Playing: true})
	e.vars["SPOTIFY_CLIENT_ID"] = "owner-spotify-app"
	e.vars["JARVIS_SPOTIFY_AUTH_URL"], e.vars["JARVIS_SPOTIFY_TOKEN_URL"] = as.URL+"/authorize", as.URL+"/token"
	e.vars["JARVIS_SPOTIFY_API_ENDPOINT"] = sp.URL

	code, out, errOut := signInAs(t, e, as, "plugins", "install", "spotify")
	if code != 0 || !strings.Contains(out, "Signed in to Spotify. ") {
		t.Fatalf("install spotify: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, r := range as.TokenRequests() {
		if r.Has("client_secret") {
			t.Error("a public client sent a client secret")
		}
	}
	code, out, errOut = e.jarvis(t, "", "plugins", "call", "spotify", "now_playing")
	if code != 0 || !strings.Contains(out, "Clair de Lune") || !strings.Contains(out, "Kitchen speaker") {
		t.Errorf("plugins call spotify now_playing: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = e.jarvis(t, "", "route", "--json", "skip to the next song")
	if code != 0 || !slices.Contains(decodeRoutes(t, out)[0].Tools, "plugin:spotify/next") {
		t.Errorf("route does not offer Spotify for a music request:\n%s", out)
	}
}

// TestHomeAssistantIsItsOwnMCPServerP6: installing Home Assistant asks
// for the host and the long-lived access token, keeps both in the keyring
// (never the database), and records its MCP server at
// https://HOST/api/mcp with the token as a reference, switched on.
func TestHomeAssistantIsItsOwnMCPServerP6(t *testing.T) {
	e := newTestEnv(t)
	const token = "ha-long-lived-token-0123456789abcdef"
	code, out, errOut := e.jarvis(t, "ha.example.net:8123\n"+token+"\n", "plugins", "install", "home-assistant")
	if code != 0 || !strings.Contains(out, "HOME_ASSISTANT_HOST") || !strings.Contains(out, "long-lived access token") || !strings.Contains(out, "Home Assistant is on") {
		t.Fatalf("install home-assistant: exit %d\n%s\n%s", code, out, errOut)
	}
	_, show, _ := e.jarvis(t, "", "mcp", "show", "home-assistant")
	if !strings.Contains(show, "https://${HOME_ASSISTANT_HOST}/api/mcp") || strings.Contains(show, token) {
		t.Errorf("mcp show home-assistant:\n%s", show)
	}
	kr, err := (&cli{Env: app.Env{Getenv: e.getenv}}).OpenSecrets(mustConfig(t, e))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := kr.Get(t.Context(), "HOME_ASSISTANT_TOKEN"); err != nil || v != token {
		t.Errorf("the token in the keyring: %q, %v", v, err)
	}
	db, _ := os.ReadFile(filepath.Join(e.vars["JARVIS_DATA_DIR"], "jarvisbot.db"))
	wal, _ := os.ReadFile(filepath.Join(e.vars["JARVIS_DATA_DIR"], "jarvisbot.db-wal"))
	if strings.Contains(string(db)+string(wal), token) {
		t.Error("the access token reached the database")
	}
	if _, list, _ := e.jarvis(t, "", "plugins", "list", "--json"); !strings.Contains(list, `"name":"home-assistant"`) || !strings.Contains(list, `"kind":"mcp"`) {
		t.Errorf("plugins list: %s", list)
	}
}

// TestRouteConnectAllOffersBuiltinToolsC7P6: for evaluation, route
// --connect-all treats the built-in plugins as signed in, so their tools
// are routed by their manuals' words without an install.
func TestRouteConnectAllOffersBuiltinToolsC7P6(t *testing.T) {
	e := newTestEnv(t)
	for msg, want := range map[string]string{
		"send Tom an email saying I am late":      "plugin:gmail/send_mail",
		"skip this song":                          "plugin:spotify/next",
		"find the budget spreadsheet on my drive": "plugin:google-drive/search_files",
	} {
		code, out, errOut := e.jarvis(t, "", "route", "--json", "--connect-all", msg)
		if code != 0 || !slices.Contains(decodeRoutes(t, out)[0].Tools, want) {
			t.Errorf("route --connect-all %q does not offer %s: exit %d\n%s%s", msg, want, code, out, errOut)
		}
		if _, out, _ := e.jarvis(t, "", "route", "--json", msg); slices.Contains(decodeRoutes(t, out)[0].Tools, want) {
			t.Errorf("route %q offers %s although nothing is installed", msg, want)
		}
	}
}
