package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
)

// browserPage is a real Chromium, driven by chromedp, on the dashboard.
type browserPage struct {
	t    *testing.T
	ctx  context.Context
	base string // the dashboard, http://127.0.0.1:PORT
	dir  string // where screenshots go
}

// chromiumForDashboard returns Chromium, or skips: the test script
// installs Debian's package where it can, and CI runs these tests.
func chromiumForDashboard(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	t.Skip("no Chromium on PATH (apt install chromium): the dashboard is not tested in a browser")
	return ""
}

// artifactDir is a fresh folder for the screenshots of a run:
// JARVIS_TEST_ARTIFACTS/name (the test script sets it), else one in the
// system's temporary directory. An earlier run's are removed.
func artifactDir(t *testing.T, name string) string {
	t.Helper()
	root := os.Getenv("JARVIS_TEST_ARTIFACTS")
	if root == "" {
		root = filepath.Join(os.TempDir(), "jarvisbot-test-artifacts")
	}
	dir := filepath.Join(root, name)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// openBrowser starts a headless Chromium with its own profile (no
// cookies) on the dashboard at base; its screenshots go to shots.
func openBrowser(t *testing.T, base, shots string) *browserPage {
	t.Helper()
	exe := chromiumForDashboard(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
		chromedp.DisableGPU,
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium's sandbox refuses root (containers)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	// A slow machine starts Chromium in seconds; the whole walk through
	// the dashboard stays well inside this.
	ctx, cancelRun := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelRun(); cancelTab(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	return &browserPage{t: t, ctx: ctx, base: base, dir: shots}
}

// do runs actions, failing the test with what was being done.
func (b *browserPage) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("browser: %s: %v\npage text:\n%s", what, err, b.text())
	}
}

// stepTimeout bounds one step (a page load, a click and what it waits
// for): generous for a slow machine, short of the whole test's bound.
const stepTimeout = 45 * time.Second

// text is the page's visible text, for failure messages.
func (b *browserPage) text() string {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	s, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body"))) // only for a message
	return s
}

// open navigates to a dashboard path and waits for its main part.
func (b *browserPage) open(path string) {
	b.t.Helper()
	b.do("opening "+path, chromedp.Navigate(b.base+path), chromedp.WaitVisible(chromedp.CSS("main")))
}

// waitText waits until the element sel shows want.
func (b *browserPage) waitText(sel, want string) {
	b.t.Helper()
	expr := `(() => { const e = document.querySelector(` + jsString(sel) + `); return !!e && e.innerText.includes(` + jsString(want) + `); })()`
	deadline := time.Now().Add(stepTimeout)
	for {
		// A poll does not survive a navigation (a form's post and its
		// redirect: "navigated", or its page's script context gone): it
		// is started again on the page that follows.
		_, err := chromedp.Run(b.ctx, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(time.Until(deadline))))
		if err == nil {
			return
		}
		if b.ctx.Err() != nil || time.Now().After(deadline) {
			b.t.Fatalf("browser: waiting for %q in %s: %v\npage text:\n%s", want, sel, err, b.text())
		}
	}
}

// shot keeps a full-page screenshot as name.png among the artifacts.
func (b *browserPage) shot(name string) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("browser: screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(b.dir, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// jsString quotes s for JavaScript.
func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "`", "\\`", "$", `\$`)
	return "`" + r.Replace(s) + "`"
}

// status fetches path from the page (with its cookies) by method and
// returns the HTTP status: what a script on the page could do.
func (b *browserPage) status(method, path string) int {
	b.t.Helper()
	n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`fetch(`+jsString(path)+`, {method: `+jsString(method)+`, redirect: "manual"}).then(r => r.status)`, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("browser: fetch %s %s: %v", method, path, err)
	}
	return n
}

// signInFromChat asks for a link with /dashboard in the owner's chat,
// opens it in the browser and presses Sign in.
func (b *browserPage) signInFromChat(tg *faketelegram.Server, owner int64) {
	b.t.Helper()
	before := len(tg.Sent())
	tg.SendText(owner, owner, "/dashboard")
	var link string
	waitSent(b.t, tg, "the sign-in link in the owner's chat", func(s []faketelegram.Sent) bool {
		for _, m := range s[min(before, len(s)):] {
			if m.ChatID == owner {
				link = linkPattern.FindString(m.Text)
			}
		}
		return link != ""
	})
	b.do("opening the sign-in link", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS(`form[action="/login"] button`)))
	b.shot("01-sign-in")
	b.do("pressing Sign in", chromedp.Click(chromedp.CSS(`form[action="/login"] button`)), chromedp.WaitVisible(chromedp.CSS("nav")))
}
