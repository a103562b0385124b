package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestDashboardInABrowserW1 walks the dashboard in a real Chromium as the
// owner does: a link from the chat signs in; a page opened without the
// session, and a change posted without the CSRF token, are refused.
// Screenshots of each page are kept among the test artifacts.
func TestDashboardInABrowserW1(t *testing.T) {
	e := newTestEnv(t)
	tg := withTelegram(t, e)
	e.vars["JARVIS_TELEGRAM_OWNERS"] = "42"
	base, _, stop := startDashboard(t, e)
	defer stop()

	stranger := openBrowser(t, base)
	stranger.open("/plugins")
	stranger.waitText("main", "jarvisbot web")
	if n := stranger.status(http.MethodGet, "/plugins"); n != http.StatusUnauthorized {
		t.Errorf("without a session the browser got %d", n)
	}

	b := openBrowser(t, base)
	b.signInFromChat(tg, 42)
	loc, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil || !strings.HasPrefix(loc, base+"/") {
		t.Fatalf("after sign-in the browser is at %q", loc)
	}
	if n := b.status(http.MethodPost, "/logout"); n != http.StatusForbidden {
		t.Errorf("a post without the CSRF token answered %d, want 403", n)
	}
	if n := b.status(http.MethodGet, "/"); n != http.StatusSeeOther && n != 0 {
		// redirect: "manual" reports an opaque redirect as status 0.
		t.Errorf("signed in, / answered %d", n)
	}
}
