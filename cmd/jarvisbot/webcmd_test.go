package main

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
	"github.com/jarvisbot/jarvisbot/web"
)

// startDashboard starts serve with the dashboard on a free port and
// returns its address (http://127.0.0.1:PORT, no slash).
func startDashboard(t *testing.T, e *testEnv) (string, *syncBuffer, func()) {
	t.Helper()
	e.vars["JARVIS_WEB_LISTEN"] = "127.0.0.1:0"
	out, stop := startServe(t, e)
	waitOutput(t, out, "jarvisbot is ready")
	m := regexp.MustCompile(`dashboard listening"? url=(http://127\.0\.0\.1:\d+)/`).FindStringSubmatch(out.String())
	if m == nil {
		stop()
		t.Fatalf("serve did not say where the dashboard listens:\n%s", out.String())
	}
	return m[1], out, stop
}

// browserless is an HTTP client that keeps cookies and shows redirects.
func browserless(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// signInWith opens a sign-in link and presses its button, as the owner
// does; it returns the client, now holding the session.
func signInWith(t *testing.T, link string) *http.Client {
	t.Helper()
	c := browserless(t)
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "Sign in") {
		t.Fatalf("opening %s: %s\n%s", link, res.Status, body)
	}
	res, err = c.PostForm(u.Scheme+"://"+u.Host+"/login", url.Values{"token": {u.Query().Get("token")}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("signing in: %s", res.Status)
	}
	return c
}

// ownerSession is serve running with the dashboard on, and the owner
// signed in to it by a one-time link made on the same data directory's
// store: the cookie jar holds the session, csrf is its token.
type ownerSession struct {
	base string
	jar  http.CookieJar
	csrf string
	out  *syncBuffer
	stop func()
}

// signedInDashboard starts serve with the dashboard (the environment
// needs a channel that keeps serve running, such as withTelegram) and
// signs the owner in; serve stops when the test ends.
func signedInDashboard(t *testing.T, e *testEnv) ownerSession {
	t.Helper()
	base, out, stop := startDashboard(t, e)
	t.Cleanup(stop)
	db, err := sqlstore.Open(context.Background(), app.DBPath(mustConfig(t, e)))
	if err != nil {
		t.Fatal(err)
	}
	link, err := web.NewLink(context.Background(), db, base, e.clock.Now())
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	c := signInWith(t, link)
	res, err := c.Get(base + "/route") // any page: its forms carry the token
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := csrfField.FindStringSubmatch(string(body))
	if m == nil {
		t.Fatalf("no CSRF token on a page of the signed-in dashboard:\n%s", body)
	}
	return ownerSession{base: base, jar: c.Jar, csrf: html.UnescapeString(m[1]), out: out, stop: stop}
}

// csrfField finds a page's CSRF token.
var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

var linkPattern = regexp.MustCompile(`https?://\S+/login\?token=[A-Za-z0-9_-]+`)

// TestWebCommandGivesAOneTimeLinkW1: `jarvisbot web` prints a link to the
// running dashboard that signs in once; without it nothing but the
// sign-in page is served.
func TestWebCommandGivesAOneTimeLinkW1(t *testing.T) {
	e := newTestEnv(t)
	withTelegram(t, e)
	base, _, stop := startDashboard(t, e)
	defer stop()
	res, err := browserless(t).Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("without a session / answered %s", res.Status)
	}
	e.vars["JARVIS_WEB_URL"] = base // the port serve took
	code, out, errOut := e.jarvis(t, "", "web")
	link := linkPattern.FindString(out)
	if code != 0 || link == "" || !strings.HasPrefix(link, base+"/login?token=") || !strings.Contains(out, "works once") {
		t.Fatalf("web: exit %d\n%s\n%s", code, out, errOut)
	}
	c := signInWith(t, link)
	res, err = c.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK { // the Overview
		t.Errorf("signed in, / answered %s", res.Status)
	}
	u, _ := url.Parse(link)
	res, err = browserless(t).PostForm(base+"/login", url.Values{"token": {u.Query().Get("token")}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("the link signed in twice: %s", res.Status)
	}
}

// TestWebCommandWhenTheDashboardIsOffW1: with web.listen off, `jarvisbot
// web` says what to set instead of printing a link that leads nowhere;
// with serve not running it prints the link and says to start serve.
func TestWebCommandWhenTheDashboardIsOffW1(t *testing.T) {
	e := newTestEnv(t)
	code, out, errOut := e.jarvis(t, "", "web")
	if code == 0 || linkPattern.MatchString(out) || !strings.Contains(errOut, "web.listen") || !strings.Contains(errOut, "JARVIS_WEB_LISTEN") {
		t.Errorf("off: exit %d\n%s\n%s", code, out, errOut)
	}
	e.vars["JARVIS_WEB_LISTEN"] = "127.0.0.1:1" // nothing listens there
	code, out, errOut = e.jarvis(t, "", "web")
	if code != 0 || !strings.Contains(out, "http://127.0.0.1:1/login?token=") || !strings.Contains(out, "start jarvisbot serve") {
		t.Errorf("not running: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestDashboardCommandInChatW1: /dashboard in the owner's chat answers
// with a one-time link that signs in; a stranger gets none.
func TestDashboardCommandInChatW1(t *testing.T) {
	e := newTestEnv(t)
	tg := withTelegram(t, e)
	e.vars["JARVIS_TELEGRAM_OWNERS"] = "42"
	base, _, stop := startDashboard(t, e)
	defer stop()
	tg.SendText(77, 77, "/dashboard")
	tg.SendText(42, 42, "/dashboard")
	var link string
	waitSent(t, tg, "the owner's sign-in link", func(s []faketelegram.Sent) bool {
		for _, m := range s {
			if m.ChatID == 42 {
				link = linkPattern.FindString(m.Text)
			}
		}
		return link != ""
	})
	for _, m := range tg.Sent() {
		if m.ChatID == 77 && linkPattern.MatchString(m.Text) {
			t.Errorf("a stranger got a sign-in link: %q", m.Text)
		}
	}
	if !strings.HasPrefix(link, base+"/login?token=") {
		t.Fatalf("link %q is not the dashboard's (%s)", link, base)
	}
	c := signInWith(t, link)
	res, err := c.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK { // the Overview
		t.Errorf("signed in by the chat's link, / answered %s", res.Status)
	}
	var registered bool
	for _, cmd := range tg.Commands() {
		registered = registered || cmd.Command == "dashboard"
	}
	if !registered {
		t.Error("/dashboard is not among the bot's registered commands")
	}
}
