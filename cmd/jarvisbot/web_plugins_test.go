package main

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakeoauth"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
	"github.com/jarvisbot/jarvisbot/store"
)

// tabOwner is a signed-in dashboard session over HTTP, as the owner's
// browser would hold it.
type tabOwner struct {
	t    *testing.T
	base string
	csrf string
	jar  http.CookieJar // the notes a change leaves for the next page
}

// servePluginsDashboard starts serve (on a fake Telegram) with the
// dashboard on and the owner signed in.
func servePluginsDashboard(t *testing.T, e *testEnv) (*tabOwner, *syncBuffer, func()) {
	t.Helper()
	withTelegram(t, e) // a channel that keeps serve running (the console ends with its input)
	o := signedInDashboard(t, e)
	return &tabOwner{t: t, base: o.base, jar: o.jar, csrf: o.csrf}, o.out, o.stop
}

// do sends a request with the session, following no redirect.
func (b *tabOwner) do(method, path string, form url.Values) *http.Response {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, b.base+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	c := &http.Client{Jar: b.jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	return res
}

// page GETs a page and returns it; it must answer 200.
func (b *tabOwner) page(path string) string {
	b.t.Helper()
	res := b.do(http.MethodGet, path, nil)
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		b.t.Fatalf("GET %s: %s\n%s", path, res.Status, body)
	}
	return string(body)
}

// press posts a form of the page with the session's CSRF token and
// returns where it sends the browser.
func (b *tabOwner) press(path string, fields ...string) string {
	b.t.Helper()
	form := url.Values{"csrf": {b.csrf}}
	for i := 0; i+1 < len(fields); i += 2 {
		form.Set(fields[i], fields[i+1])
	}
	res := b.do(http.MethodPost, path, form)
	defer res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		body, _ := io.ReadAll(res.Body)
		b.t.Fatalf("POST %s: %s\n%s", path, res.Status, body)
	}
	return res.Header.Get("Location")
}

// signInLink is the sign-in link the progress page offers.
func (b *tabOwner) signInLink(path string) string {
	b.t.Helper()
	body := b.page(path)
	m := regexp.MustCompile(`id="signin-link"[^>]*href="([^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		b.t.Fatalf("no sign-in link on %s:\n%s", path, body)
	}
	return html.UnescapeString(m[1])
}

// followSignIn opens a sign-in link as the owner's browser would: the fake
// authorization server approves and sends it back to jarvisbot's
// loopback callback.
func followSignIn(t *testing.T, link string) {
	t.Helper()
	res, err := http.Get(link)
	if err != nil {
		t.Fatalf("following the sign-in link: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("the sign-in's callback answered %s", res.Status)
	}
}

// waitProgress polls the progress page until it says want.
func (b *tabOwner) waitProgress(path, want string) string {
	b.t.Helper()
	var body string
	waitFor(b.t, want+" on "+path, func() (bool, any) {
		body = b.page(path)
		return strings.Contains(body, want), body
	})
	return body
}

// withSpotifySignIn points Spotify's sign-in at a fake authorization
// server with the owner's public client.
func withSpotifySignIn(t *testing.T, e *testEnv) *fakeoauth.AuthServer {
	as := fakeoauth.NewAuthServer(t)
	as.AddClient("owner-spotify-app")
	as.AddResource("")
	e.vars["SPOTIFY_CLIENT_ID"] = "owner-spotify-app"
	e.vars["JARVIS_SPOTIFY_AUTH_URL"], e.vars["JARVIS_SPOTIFY_TOKEN_URL"] = as.URL+"/authorize", as.URL+"/token"
	return as
}

// TestDashboardInstallsASignInPluginW1P3P4: in the dashboard of a
// running serve, the owner installs Spotify: the install waits for the
// sign-in and its progress offers the link; opened, the fake
// authorization server sends the browser back to jarvisbot, the progress
// says Installed and the plugin is listed as installed and connected (the
// command line sees the same). When its sign-in needs attention, Renew
// gives a new link and brings it back; Remove removes it and forgets the
// sign-in. No token reaches a page or the log.
func TestDashboardInstallsASignInPluginW1P3P4(t *testing.T) {
	e := newTestEnv(t)
	as := withSpotifySignIn(t, e)
	b, out, stop := servePluginsDashboard(t, e)

	if list := b.page("/plugins"); !strings.Contains(list, `id="install-spotify"`) {
		t.Fatalf("Spotify is not in the store:\n%s", list)
	}
	if to := b.press("/plugins/spotify/install", "install", "spotify"); to != "/plugins/spotify/progress" {
		t.Fatalf("the install went to %q", to)
	}
	link := b.signInLink("/plugins/spotify/progress")
	if !strings.HasPrefix(link, as.URL+"/authorize?") || !strings.Contains(link, "code_challenge=") {
		t.Fatalf("the sign-in link %q", link)
	}
	followSignIn(t, link)
	done := b.waitProgress("/plugins/spotify/progress", "<h2>Installed</h2>")
	if !strings.Contains(done, "Signed in to Spotify.") || strings.Contains(done, "hx-trigger") {
		t.Errorf("the finished install:\n%s", done)
	}
	list := b.page("/plugins")
	if !strings.Contains(list, `id="installed-spotify"`) || !strings.Contains(list, `id="remove-spotify"`) || strings.Contains(list, `id="install-spotify"`) {
		t.Errorf("after the install, the list:\n%s", list)
	}
	if _, cli, _ := e.jarvis(t, "", "plugins", "list", "--json"); !strings.Contains(cli, `"name":"spotify"`) || !strings.Contains(cli, `"state":"connected"`) {
		t.Errorf("plugins list after the dashboard's install: %s", cli)
	}
	if page := b.page("/plugins/spotify"); !strings.Contains(page, "plugin:spotify/next") || !strings.Contains(page, `id="remove-spotify"`) {
		t.Errorf("the plugin's page lacks its tools or Remove:\n%s", page)
	}

	// Its sign-in is refused (attention records that): Needs attention,
	// with Renew, which runs the chat button's renewal.
	db, err := e.app(nil, io.Discard, io.Discard).OpenStore(context.Background(), mustConfig(t, e))
	if err != nil {
		t.Fatal(err)
	}
	err = db.SetPluginState(context.Background(), "spotify", store.PluginNeedsAttention)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if list := b.page("/plugins"); !strings.Contains(list, `id="renew-spotify"`) {
		t.Fatalf("Spotify is not under Needs attention:\n%s", list)
	}
	if to := b.press("/plugins/spotify/renew", "renew", "spotify"); to != "/plugins/spotify/progress" {
		t.Fatalf("the renewal went to %q", to)
	}
	followSignIn(t, b.signInLink("/plugins/spotify/progress"))
	b.waitProgress("/plugins/spotify/progress", "<h2>Signed in</h2>")
	if list := b.page("/plugins"); strings.Contains(list, `id="renew-spotify"`) || !strings.Contains(list, `id="remove-spotify"`) {
		t.Errorf("after the renewal:\n%s", list)
	}

	if to := b.press("/plugins/spotify/remove", "remove", "spotify"); to != "/plugins" {
		t.Fatalf("the removal went to %q", to)
	}
	if list := b.page("/plugins"); !strings.Contains(list, `id="install-spotify"`) || !strings.Contains(list, "Removed Spotify") {
		t.Errorf("after the removal:\n%s", list)
	}
	kr, err := e.app(nil, io.Discard, io.Discard).OpenSecrets(mustConfig(t, e))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kr.Get(context.Background(), signin.KeyName("spotify")); err == nil {
		t.Error("the removed plugin's sign-in is still in the keyring")
	}
	stop()
	for _, s := range as.Secrets() {
		if len(s) > 8 && strings.Contains(out.String(), s) {
			t.Error("a token reached serve's log")
		}
	}
}

// TestDashboardInstallAsksForValuesW1P6X3: a plugin that asks for values
// at install (Home Assistant's host and token) takes them from its page's
// form into the keyring, as the command line takes them from stdin: the
// token reaches neither the database, nor a page, nor the log.
func TestDashboardInstallAsksForValuesW1P6X3(t *testing.T) {
	e := newTestEnv(t)
	b, out, stop := servePluginsDashboard(t, e)
	page := b.page("/plugins/home-assistant")
	for _, want := range []string{`id="install-home-assistant"`, `type="text" id="setting-HOME_ASSISTANT_HOST"`, `type="password" id="setting-HOME_ASSISTANT_TOKEN"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	const token = "ha-dashboard-token-0123456789abcdef"
	if to := b.press("/plugins/home-assistant/install", "install", "home-assistant",
		"setting.HOME_ASSISTANT_HOST", "127.0.0.1:1", "setting.HOME_ASSISTANT_TOKEN", token); to != "/plugins" {
		t.Fatalf("the install went to %q", to)
	}
	list := b.page("/plugins")
	if !strings.Contains(list, "Kept HOME_ASSISTANT_HOST and HOME_ASSISTANT_TOKEN in the keyring.") || !strings.Contains(list, `id="installed-home-assistant"`) || strings.Contains(list, token) {
		t.Errorf("after the install:\n%s", list)
	}
	kr, err := e.app(nil, io.Discard, io.Discard).OpenSecrets(mustConfig(t, e))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := kr.Get(t.Context(), "HOME_ASSISTANT_TOKEN"); err != nil || v != token {
		t.Errorf("the token in the keyring: %v", err)
	}
	if page := b.page("/plugins/home-assistant"); strings.Contains(page, token) || strings.Contains(page, "setting-HOME_ASSISTANT_TOKEN") {
		t.Errorf("the installed plugin's page shows the token or asks again:\n%s", page)
	}
	stop()
	dbf, _ := os.ReadFile(filepath.Join(e.vars["JARVIS_DATA_DIR"], "jarvisbot.db"))
	wal, _ := os.ReadFile(filepath.Join(e.vars["JARVIS_DATA_DIR"], "jarvisbot.db-wal"))
	if strings.Contains(string(dbf)+string(wal)+out.String(), token) {
		t.Error("the access token reached the database or the log")
	}
}

// TestDashboardSignsInAPluginsServerW1P3: a plugin installed without its
// sign-in (--no-signin) offers one on its page; done from the dashboard
// (dynamic registration and PKCE at the fake authorization server), the
// plugin's MCP server starts in the running service with the sign-in's
// token, and the page lists its tools with their tiers.
func TestDashboardSignsInAPluginsServerW1P3(t *testing.T) {
	e := newTestEnv(t)
	as := fakeoauth.NewAuthServer(t)
	pm := fakeoauth.NewProtectedMCP(t, as)
	e.mustJarvis(t, "", "plugins", "install", writePlugin(t, pm.URL), "--yes", "--no-signin")
	b, _, _ := servePluginsDashboard(t, e)
	page := b.page("/plugins/acme")
	if !strings.Contains(page, `id="renew-acme"`) || !strings.Contains(page, ">Sign in</button>") {
		t.Fatalf("the page of a plugin installed without its sign-in offers none:\n%s", page)
	}
	if to := b.press("/plugins/acme/renew", "renew", "acme"); to != "/plugins/acme/progress" {
		t.Fatalf("the sign-in went to %q", to)
	}
	followSignIn(t, b.signInLink("/plugins/acme/progress"))
	b.waitProgress("/plugins/acme/progress", "<h2>Signed in</h2>")
	if as.Registrations() != 1 {
		t.Errorf("%d client registrations", as.Registrations())
	}
	waitFor(t, "the plugin's tools on its page", func() (bool, any) {
		page = b.page("/plugins/acme")
		return strings.Contains(page, "mcp:acme/whoami"), page
	})
	if strings.Contains(page, `id="renew-acme"`) {
		t.Errorf("a signed-in plugin still offers a sign-in:\n%s", page)
	}
	if _, list, _ := e.jarvis(t, "", "plugins", "list", "--json"); !strings.Contains(list, `"state":"connected"`) {
		t.Errorf("plugins list: %s", list)
	}
}
