package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// dashboard is a Server on a real store, its clock pinned to *now.
type dashboard struct {
	s      *Server
	srv    *httptest.Server
	logins *sqlstore.DB
	now    *time.Time
}

func newDashboard(t *testing.T, o Options) *dashboard {
	t.Helper()
	db, err := sqlstore.Open(context.Background(), filepath.Join(t.TempDir(), "j.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	d := &dashboard{logins: db, now: &now}
	o.Logins = db
	o.Now = func() time.Time { return *d.now }
	if o.Overview == nil { // the page a signed-in owner lands on
		o.Overview = fixedOverview{}
	}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	d.s, d.srv = s, httptest.NewServer(s.Handler())
	t.Cleanup(d.srv.Close)
	return d
}

// client does not follow redirects, so each answer is seen as sent.
func client() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// link makes a one-time link and returns its token.
func (d *dashboard) link(t *testing.T) string {
	t.Helper()
	l, err := NewLink(context.Background(), d.logins, d.srv.URL, *d.now)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(l)
	if err != nil || !strings.HasPrefix(l, d.srv.URL+"/login?token=") {
		t.Fatalf("link %q", l)
	}
	return u.Query().Get("token")
}

// dashboardSignedIn starts a dashboard with o and signs in to it; it
// returns the dashboard, the session and the session's CSRF token.
func dashboardSignedIn(t *testing.T, o Options) (*dashboard, *http.Cookie, string) {
	t.Helper()
	d := newDashboard(t, o)
	sess := d.signIn(t)
	return d, sess, csrfOf(sess.Value)
}

// signIn uses a fresh link and returns the session cookie.
func (d *dashboard) signIn(t *testing.T) *http.Cookie {
	t.Helper()
	res := d.post(t, "/login", url.Values{"token": {d.link(t)}}, nil, "")
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in answered %s", res.Status)
	}
	sess := cookieOf(res, sessionCookie)
	if sess == nil {
		t.Fatal("no session cookie")
	}
	return sess
}

func (d *dashboard) get(t *testing.T, path string, c *http.Cookie) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, d.srv.URL+path, nil)
	if c != nil {
		req.AddCookie(c)
	}
	return send(t, req)
}

// page gets path with the session and fails the test unless it answers
// 200 OK; it returns the page's body.
func (d *dashboard) page(t *testing.T, path string, c *http.Cookie) string {
	t.Helper()
	res, body := d.get(t, path, c)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s\n%s", path, res.Status, body)
	}
	return body
}

func (d *dashboard) post(t *testing.T, path string, form url.Values, c *http.Cookie, origin string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, d.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if c != nil {
		req.AddCookie(c)
	}
	res, err := client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// TestSignInByOneTimeLinkW1: without a session every page says how to
// get a link; a link opened shows a button and is not used up by the
// opening; its post signs in once, with an HttpOnly, SameSite=Strict
// cookie; a used or expired link signs no one in.
func TestSignInByOneTimeLinkW1(t *testing.T) {
	d := newDashboard(t, Options{})
	res, body := d.get(t, "/plugins", nil)
	if res.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "jarvisbot web") || !strings.Contains(body, "/dashboard") {
		t.Fatalf("without a session: %s\n%s", res.Status, body)
	}
	token := d.link(t)
	for range 2 { // a preview or prefetch opening the link does not spend it
		if res, body := d.get(t, "/login?token="+url.QueryEscape(token), nil); res.StatusCode != http.StatusOK || !strings.Contains(body, `name="token" value="`+token+`"`) {
			t.Fatalf("opening the link: %s\n%s", res.Status, body)
		}
	}
	res = d.post(t, "/login", url.Values{"token": {token}}, nil, "")
	sess := cookieOf(res, sessionCookie)
	if res.StatusCode != http.StatusSeeOther || sess == nil || !sess.HttpOnly || sess.SameSite != http.SameSiteStrictMode || sess.Secure {
		t.Fatalf("sign-in: %s, cookie %+v", res.Status, sess)
	}
	if res, body := d.get(t, "/", sess); res.StatusCode != http.StatusOK || !strings.Contains(body, "<h1>Overview</h1>") {
		t.Errorf("signed in, / answered %s:\n%s", res.Status, body)
	}
	if res := d.post(t, "/login", url.Values{"token": {token}}, nil, ""); res.StatusCode != http.StatusForbidden {
		t.Errorf("a used link answered %s", res.Status)
	}
	late := d.link(t)
	*d.now = d.now.Add(LinkTTL + time.Second)
	if res := d.post(t, "/login", url.Values{"token": {late}}, nil, ""); res.StatusCode != http.StatusForbidden {
		t.Errorf("an expired link answered %s", res.Status)
	}
	if res, _ := d.get(t, "/", &http.Cookie{Name: sessionCookie, Value: "made-up"}); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("a made-up session answered %s", res.Status)
	}
	*d.now = d.now.Add(SessionTTL)
	if res, _ := d.get(t, "/", sess); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("an expired session answered %s", res.Status)
	}
}

// TestChangesNeedTheCSRFTokenW1: a change with the session but without
// its CSRF token, with another session's token, or from another site's
// page is refused; with the token it is done.
func TestChangesNeedTheCSRFTokenW1(t *testing.T) {
	d := newDashboard(t, Options{})
	sess := d.signIn(t)
	other := d.signIn(t)
	for _, tc := range []struct {
		name   string
		form   url.Values
		origin string
	}{
		{"no token", url.Values{}, ""},
		{"another session's token", url.Values{"csrf": {csrfOf(other.Value)}}, ""},
		{"another site", url.Values{"csrf": {csrfOf(sess.Value)}}, "https://evil.example"},
	} {
		if res := d.post(t, "/logout", tc.form, sess, tc.origin); res.StatusCode != http.StatusForbidden {
			t.Errorf("%s: answered %s", tc.name, res.Status)
		}
	}
	if res, _ := d.get(t, "/", sess); res.StatusCode != http.StatusOK {
		t.Fatalf("a refused sign-out signed out: %s", res.Status)
	}
	if res := d.post(t, "/logout", url.Values{"csrf": {csrfOf(sess.Value)}}, sess, d.srv.URL); res.StatusCode != http.StatusOK {
		t.Errorf("sign-out with the token: %s", res.Status)
	}
	if res, _ := d.get(t, "/", sess); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("after signing out: %s", res.Status)
	}
	if res, _ := d.get(t, "/", other); res.StatusCode != http.StatusOK {
		t.Errorf("signing out ended another session: %s", res.Status)
	}
}

// TestSecureCookieOverTLSW1: behind TLS the session cookie is Secure.
func TestSecureCookieOverTLSW1(t *testing.T) {
	d := newDashboard(t, Options{Secure: true})
	if c := d.signIn(t); !c.Secure {
		t.Errorf("cookie %+v is not Secure", c)
	}
}

// TestPagesAreLockedDownW1: pages forbid framing, scripts from elsewhere
// and referrers (a sign-in link never leaks); the vendored htmx is
// served with its licence.
func TestPagesAreLockedDownW1(t *testing.T) {
	d := newDashboard(t, Options{})
	res, _ := d.get(t, "/login?token=x", nil)
	for k, want := range map[string]string{"Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY", "Cache-Control": "no-store"} {
		if got := res.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("CSP %q", csp)
	}
	for _, f := range []string{"/static/htmx-2.0.11.min.js", "/static/htmx-LICENSE.txt", "/static/style.css"} {
		if res, body := d.get(t, f, nil); res.StatusCode != http.StatusOK || body == "" {
			t.Errorf("%s: %s", f, res.Status)
		}
	}
}

// TestStaticListsNoDirectoryW1: /static/ serves its files, never a listing
// of them: a directory, with or without its slash, is not found.
func TestStaticListsNoDirectoryW1(t *testing.T) {
	d := newDashboard(t, Options{})
	for _, p := range []string{"/static/", "/static/?C=M;O=D", "/static/missing.js"} {
		res, body := d.get(t, p, nil)
		if res.StatusCode != http.StatusNotFound || strings.Contains(body, `href="htmx-2.0.11.min.js"`) {
			t.Errorf("%s answered %s with %q; want 404 and no listing", p, res.Status, body)
		}
	}
	// Other spellings of the directory end elsewhere: the sign-in (no
	// slash: not under /static/) or a redirect to /static/.
	for _, p := range []string{"/static", "/static/./"} {
		if res, body := d.get(t, p, nil); res.StatusCode == http.StatusOK || strings.Contains(body, `href="htmx-2.0.11.min.js"`) {
			t.Errorf("%s answered %s with a listing: %q", p, res.Status, body)
		}
	}
}

// TestOnlyItsOwnNamesW1: with Hosts set, a request for another name (a
// DNS-rebinding page, a wrong proxy) is refused before anything else.
func TestOnlyItsOwnNamesW1(t *testing.T) {
	d := newDashboard(t, Options{Hosts: []string{"jarvis.home:8780"}})
	for host, want := range map[string]int{"jarvis.home:8780": http.StatusOK, "rebound.example:8780": http.StatusMisdirectedRequest} {
		req, _ := http.NewRequest(http.MethodGet, d.srv.URL+"/login?token=x", nil)
		req.Host = host
		res, err := client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("Host %s answered %s, want %d", host, res.Status, want)
		}
	}
}

// TestTabOfAPageW1: a page under a tab lights that tab up.
func TestTabOfAPageW1(t *testing.T) {
	for page, want := range map[string]string{"plugins": "plugins", "plugin": "plugins", "plugin-progress": "plugins", "agent": "agents", "mcp": "mcps", "activity": "activity", "login": "login"} {
		if got := tabOf(page); got != want {
			t.Errorf("tabOf(%q) = %q, want %q", page, got, want)
		}
	}
}

// TestLargeBodiesAreRefusedW1: a body past the bound is not read into
// memory; the change is refused.
func TestLargeBodiesAreRefusedW1(t *testing.T) {
	d := newDashboard(t, Options{})
	sess := d.signIn(t)
	big := url.Values{"csrf": {csrfOf(sess.Value)}, "pad": {strings.Repeat("x", maxBody)}}
	if res := d.post(t, "/logout", big, sess, ""); res.StatusCode == http.StatusOK {
		t.Errorf("a %d-byte form was taken: %s", len(big.Encode()), res.Status)
	}
	if res, _ := d.get(t, "/", sess); res.StatusCode != http.StatusOK {
		t.Errorf("the refused form signed out: %s", res.Status)
	}
}
