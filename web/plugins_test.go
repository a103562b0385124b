package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/jarvisbot/jarvisbot"
)

// storeDouble is the Plugins tab's backend as the page sees it: a small
// store whose installs wait for a sign-in the test completes. (The real
// one, over the running service, is tested end to end in cmd/jarvisbot.)
type storeDouble struct {
	mu       sync.Mutex
	rows     []PluginRow
	page     PluginPage
	progress map[string]Progress
	inputs   []InstallInput
	removed  []string
	renewed  []string
}

func newStoreDouble() *storeDouble {
	return &storeDouble{
		rows: []PluginRow{
			{Name: "acme", DisplayName: "Acme", Kind: "MCP server", State: "needs-attention", Brings: "MCP server https://acme.example/mcp", Installed: true, Attention: true},
			{Name: "gizmo", DisplayName: "Gizmo", Kind: "built in", State: "connected", Brings: "3 tools built into jarvisbot", Installed: true},
			{Name: "homebox", DisplayName: "Homebox", Kind: "MCP server", State: "not-installed", Brings: "MCP server https://${HOMEBOX_HOST}/mcp", AsksValues: true},
			{Name: "widgets", DisplayName: "Widgets", Description: "Widgets <b>for all</b>", Kind: "MCP server", State: "not-installed", Brings: "MCP server https://widgets.example/mcp"},
		},
		progress: map[string]Progress{},
	}
}

func (d *storeDouble) List(context.Context) ([]PluginRow, error) { return d.rows, nil }

func (d *storeDouble) Plugin(_ context.Context, name string) (PluginPage, error) {
	if d.page.Name != name {
		return PluginPage{}, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "the store has no plugin %q (see jarvisbot plugins list)", name)
	}
	return d.page, nil
}

func (d *storeDouble) Install(_ context.Context, name string, in InstallInput) (Progress, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.inputs = append(d.inputs, in)
	switch name {
	case "widgets": // signs in: waits for the owner
		p := Progress{Plugin: name, DisplayName: "Widgets", Action: "install", Link: "https://auth.example/authorize?state=s1&code_challenge=c", Words: "Installed Widgets.\nSign in to Widgets in your browser.\n"}
		d.progress[name] = p
		return p, nil
	case "gizmo":
		return Progress{}, jarvisbot.Errorf(jarvisbot.ECONFLICT, "gizmo is installed already; to renew its sign-in run jarvisbot plugins signin gizmo")
	}
	return Progress{Plugin: name, Action: "install", Done: true, Words: "Installed " + name + ". jarvisbot connects to its MCP server when the service runs."}, nil
}

func (d *storeDouble) Renew(_ context.Context, name string) (Progress, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.renewed = append(d.renewed, name)
	p := Progress{Plugin: name, DisplayName: "Acme", Action: "renew", Link: "https://auth.example/authorize?state=s2"}
	d.progress[name] = p
	return p, nil
}

func (d *storeDouble) Progress(_ context.Context, name string) (Progress, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	p, ok := d.progress[name]
	return p, ok
}

// end finishes a plugin's run as the sign-in would.
func (d *storeDouble) end(name, err string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	p := d.progress[name]
	p.Done, p.Link, p.Err = true, "", err
	if err == "" {
		p.Words += "Signed in to Widgets.\n"
	}
	d.progress[name] = p
}

func (d *storeDouble) Remove(_ context.Context, name string) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.removed = append(d.removed, name)
	return "Removed " + name + ": its manual's words no longer route to it, and its sign-in is forgotten.", nil
}

// form is a change's form with the session's CSRF token.
func form(sess *http.Cookie, kv ...string) url.Values {
	v := url.Values{"csrf": {csrfOf(sess.Value)}}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v
}

// TestPluginsTabHasItsThreeSectionsW1P4: the tab lists what needs
// attention first, each with a Renew form, then the installed plugins
// with Remove, then the store's others with Install; a plugin that asks
// for values is installed from its page, where its fields are.
func TestPluginsTabHasItsThreeSectionsW1P4(t *testing.T) {
	d := newDashboard(t, Options{Plugins: newStoreDouble()})
	sess := d.signIn(t)
	body := d.page(t, "/plugins", sess)
	order := []string{"Needs attention", `id="renew-acme"`, "<h2>Installed</h2>", `id="remove-gizmo"`, "<h2>Store</h2>", `id="install-widgets"`}
	at := 0
	for _, want := range order {
		i := strings.Index(body[at:], want)
		if i < 0 {
			t.Fatalf("%q missing, or out of order, in:\n%s", want, body)
		}
		at += i
	}
	wantIn(t, "the list", body, `action="/plugins/acme/renew"`, `action="/plugins/widgets/install"`, `name="install"`, `name="csrf" value="`+csrfOf(sess.Value)+`"`, `href="/plugins/homebox#install"`, "Widgets &lt;b&gt;for all&lt;/b&gt;")
	wantNotIn(t, "the list", body, `id="install-homebox"`, `id="install-gizmo"`, `id="remove-widgets"`, `id="renew-gizmo"`)
}

// TestPluginPageShowsManualWordsAndToolsP2C2: a plugin's page has its
// manual, its words, its tools with their tiers and its servers, and an
// install form with a field per value it asks for (a password field for
// a secret).
func TestPluginPageShowsManualWordsAndToolsP2C2(t *testing.T) {
	st := newStoreDouble()
	st.page = PluginPage{
		PluginRow: PluginRow{Name: "homebox", DisplayName: "Homebox", Kind: "MCP server", State: "not-installed"},
		SignIn:    "an API key, kept in the keyring", Manual: "skill:homebox", Tier: "monitor",
		Words: []string{"lights", "thermostat"}, WordsDE: []string{"Licht"}, Text: "Read the room first.\\x1b[2J",
		Tools:    []PluginTool{{ID: "mcp:homebox/turn_on", Tier: "monitor", Description: "Turns a light on"}, {ID: "mcp:homebox/unlock", Tier: "ask", Description: "Unlocks a door"}},
		Servers:  []PluginServer{{ID: "homebox", Type: "streamable-http", Target: "https://${HOMEBOX_HOST}/mcp"}},
		Settings: []Setting{{Name: "HOMEBOX_HOST", Hint: "its host"}, {Name: "HOMEBOX_TOKEN", Hint: "a token", Secret: true}},
	}
	d := newDashboard(t, Options{Plugins: st})
	sess := d.signIn(t)
	body := d.page(t, "/plugins/homebox", sess)
	wantIn(t, "the page", body, "Read the room first.\\x1b[2J", "lights, thermostat", "Licht", "skill:homebox",
		`<td>mcp:homebox/unlock</td><td class="tier-ask">ask</td>`, `class="tier-monitor">monitor`, "https://${HOMEBOX_HOST}/mcp",
		`id="install-homebox"`, `name="install"`,
		`type="text" id="setting-HOMEBOX_HOST" name="setting.HOMEBOX_HOST"`,
		`type="password" id="setting-HOMEBOX_TOKEN" name="setting.HOMEBOX_TOKEN"`)
	if strings.Contains(body, `id="remove-homebox"`) {
		t.Error("a plugin not installed has a Remove form")
	}
	if res, body := d.get(t, "/plugins/nosuch", sess); res.StatusCode != http.StatusNotFound || !strings.Contains(body, `the store has no plugin &#34;nosuch&#34;`) {
		t.Errorf("an unknown plugin: %s\n%s", res.Status, body)
	}
}

// TestInstallShowsTheSignInAndItsProgressW1P3: installing a plugin that
// signs in goes to its progress, which shows the sign-in link and polls
// while it waits (and has a plain link for a browser without
// JavaScript); once signed in it says Installed and stops polling; a
// failed sign-in says Failed with the error.
func TestInstallShowsTheSignInAndItsProgressW1P3(t *testing.T) {
	st := newStoreDouble()
	d := newDashboard(t, Options{Plugins: st})
	sess := d.signIn(t)
	res := d.post(t, "/plugins/widgets/install", form(sess, "install", "widgets"), sess, "")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/plugins/widgets/progress" {
		t.Fatalf("install: %s to %q", res.Status, res.Header.Get("Location"))
	}
	_, body := d.get(t, "/plugins/widgets/progress", sess)
	wantIn(t, "the progress page", body, `id="install-progress"`, `id="signin-link"`, `href="https://auth.example/authorize?state=s1&amp;code_challenge=c"`,
		`hx-get="/plugins/widgets/progress"`, `hx-trigger="every 1s"`, `href="/plugins/widgets/progress"`, "Waiting for you to sign in", "<html")
	if strings.Contains(body, "Installed") {
		t.Errorf("the progress says Installed while it waits for the sign-in:\n%s", body)
	}
	req, _ := http.NewRequest(http.MethodGet, d.srv.URL+"/plugins/widgets/progress", nil)
	req.AddCookie(sess)
	req.Header.Set("HX-Request", "true")
	_, block := send(t, req)
	if !strings.HasPrefix(strings.TrimSpace(block), `<div id="install-progress"`) || strings.Contains(block, "<html") {
		t.Errorf("htmx's poll got more than the progress block:\n%s", block)
	}

	st.end("widgets", "")
	_, body = d.get(t, "/plugins/widgets/progress", sess)
	if !strings.Contains(body, "Installed") || strings.Contains(body, "hx-trigger") || strings.Contains(body, `id="signin-link"`) || !strings.Contains(body, "Signed in to Widgets.") {
		t.Errorf("once signed in:\n%s", body)
	}

	res = d.post(t, "/plugins/widgets/install", form(sess, "install", "widgets"), sess, "")
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("install again: %s", res.Status)
	}
	st.end("widgets", "sign-in to Widgets did not complete: access_denied; the plugin stays installed, try again with jarvisbot plugins signin widgets")
	_, body = d.get(t, "/plugins/widgets/progress", sess)
	if !strings.Contains(body, "Failed") || !strings.Contains(body, "did not complete: access_denied") || strings.Contains(body, "hx-trigger") {
		t.Errorf("a failed sign-in:\n%s", body)
	}
	if res, _ := d.get(t, "/plugins/gizmo/progress", sess); res.StatusCode != http.StatusNotFound {
		t.Errorf("progress of nothing started: %s", res.Status)
	}
}

// TestInstallWithoutSignInComesBackWithANoteW1P2: a plugin with no
// sign-in is installed at once: back to the list with the command's
// words; the values a plugin asks for reach the backend and never the
// page; an install the store refuses shows its error as the CLI words it.
func TestInstallWithoutSignInComesBackWithANoteW1P2(t *testing.T) {
	st := newStoreDouble()
	d := newDashboard(t, Options{Plugins: st})
	sess := d.signIn(t)
	const token = "hb-secret-token-0123456789"
	res := d.post(t, "/plugins/homebox/install", form(sess, "install", "homebox", "setting.HOMEBOX_HOST", "hb.example:8123", "setting.HOMEBOX_TOKEN", token), sess, "")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/plugins" {
		t.Fatalf("install: %s to %q", res.Status, res.Header.Get("Location"))
	}
	note := cookieOf(res, flashCookie)
	if note == nil {
		t.Fatal("no note")
	}
	req, _ := http.NewRequest(http.MethodGet, d.srv.URL+"/plugins", nil)
	req.AddCookie(sess)
	req.AddCookie(note)
	_, body := send(t, req)
	if !strings.Contains(body, `class="note"`) || !strings.Contains(body, "Installed homebox.") || strings.Contains(body, token) {
		t.Errorf("the list after the install:\n%s", body)
	}
	if len(st.inputs) != 1 || st.inputs[0].Values["HOMEBOX_HOST"] != "hb.example:8123" || st.inputs[0].Values["HOMEBOX_TOKEN"] != token || st.inputs[0].AllGoogle {
		t.Errorf("the backend got %+v", st.inputs)
	}
	res = d.post(t, "/plugins/gizmo/install", form(sess, "install", "gizmo"), sess, "")
	if res.StatusCode != http.StatusConflict {
		t.Errorf("installing an installed plugin: %s", res.Status)
	}
	if res := d.post(t, "/plugins/widgets/install", url.Values{"install": {"widgets"}}, sess, ""); res.StatusCode != http.StatusForbidden || len(st.inputs) != 2 {
		t.Errorf("an install without the CSRF token: %s, %d installs", res.Status, len(st.inputs))
	}
}

// TestRemoveAndRenewW1P4: Remove comes back with the command's words;
// Renew goes to the progress with the sign-in link, as the chat's button
// sends it.
func TestRemoveAndRenewW1P4(t *testing.T) {
	st := newStoreDouble()
	d := newDashboard(t, Options{Plugins: st})
	sess := d.signIn(t)
	res := d.post(t, "/plugins/gizmo/remove", form(sess, "remove", "gizmo"), sess, "")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/plugins" || len(st.removed) != 1 {
		t.Errorf("remove: %s to %q, removed %v", res.Status, res.Header.Get("Location"), st.removed)
	}
	res = d.post(t, "/plugins/acme/renew", form(sess, "renew", "acme"), sess, "")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/plugins/acme/progress" {
		t.Fatalf("renew: %s to %q", res.Status, res.Header.Get("Location"))
	}
	_, body := d.get(t, "/plugins/acme/progress", sess)
	if !strings.Contains(body, "Signing in to Acme") || !strings.Contains(body, `id="signin-link" class="button primary" href="https://auth.example/authorize?state=s2"`) {
		t.Errorf("the renewal's progress:\n%s", body)
	}
}

// TestPluginsTabWithoutItsBackendW1: a process without the plugin store
// says so instead of failing.
func TestPluginsTabWithoutItsBackendW1(t *testing.T) {
	d := newDashboard(t, Options{})
	sess := d.signIn(t)
	for _, p := range []string{"/plugins", "/plugins/acme", "/plugins/acme/progress"} {
		if res, body := d.get(t, p, sess); res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "not available") {
			t.Errorf("%s: %s", p, res.Status)
		}
	}
}

// TestPluginPageOffersTheSignInItLacksW1P4: an installed plugin's page has
// Remove and no install form; one whose sign-in needs attention offers
// Renew, one whose sign-in never completed offers Sign in, a connected
// one neither.
func TestPluginPageOffersTheSignInItLacksW1P4(t *testing.T) {
	for _, tc := range []struct {
		name string
		row  PluginRow
		want string // the sign-in button's label; "" for none
	}{
		{"needs attention", PluginRow{State: "needs-attention", Installed: true, Attention: true}, "Renew sign-in"},
		{"never signed in", PluginRow{State: "installed", Installed: true, SignInMissing: true}, "Sign in"},
		{"connected", PluginRow{State: "connected", Installed: true}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newStoreDouble()
			tc.row.Name, tc.row.DisplayName = "acme", "Acme"
			st.page = PluginPage{PluginRow: tc.row, Manual: "skill:acme", Tier: "monitor"}
			d := newDashboard(t, Options{Plugins: st})
			sess := d.signIn(t)
			_, body := d.get(t, "/plugins/acme", sess)
			if !strings.Contains(body, `id="remove-acme"`) || strings.Contains(body, `id="install-acme"`) {
				t.Errorf("an installed plugin's page:\n%s", body)
			}
			got := strings.Contains(body, `id="renew-acme"`)
			if got != (tc.want != "") || tc.want != "" && !strings.Contains(body, ">"+tc.want+"</button>") {
				t.Errorf("want a %q button, the page:\n%s", tc.want, body)
			}
		})
	}
}
