package main

import (
	"bytes"
	"encoding/json"
	"html"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/jarvisbot/jarvisbot/app"
)

// skillsBrowser is a signed-in client of the dashboard that serve serves,
// for the Skills and MCPs tabs' tests.
type skillsBrowser struct {
	base string
	c    *http.Client
	csrf string
}

// serveTabs runs serve (on a fake Telegram) with the dashboard on and the
// owner signed in.
func serveTabs(t *testing.T, e *testEnv) (*skillsBrowser, *syncBuffer) {
	t.Helper()
	withTelegram(t, e) // a channel that keeps serve running
	e.vars["JARVIS_TELEGRAM_OWNERS"] = "42"
	o := signedInDashboard(t, e)
	return &skillsBrowser{base: o.base, c: &http.Client{Jar: o.jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}, csrf: o.csrf}, o.out
}

func (b *skillsBrowser) get(t *testing.T, path string) (*http.Response, string) {
	t.Helper()
	res, err := b.c.Get(b.base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, html.UnescapeString(string(body))
}

// post sends a form with the session's CSRF token.
func (b *skillsBrowser) post(t *testing.T, path string, form url.Values) (*http.Response, string) {
	t.Helper()
	if b.csrf != "" {
		form.Set("csrf", b.csrf)
	}
	return b.send(t, path, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
}

func (b *skillsBrowser) send(t *testing.T, path, contentType string, body io.Reader) (*http.Response, string) {
	t.Helper()
	res, err := b.c.Post(b.base+path, contentType, body)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	page, _ := io.ReadAll(res.Body)
	return res, html.UnescapeString(string(page))
}

// note is the note a change left for the next page.
func (b *skillsBrowser) note(t *testing.T, res *http.Response) string {
	t.Helper()
	if res.StatusCode != http.StatusSeeOther {
		return ""
	}
	_, page := b.get(t, res.Header.Get("Location"))
	m := regexp.MustCompile(`(?s)<p class="note" role="status">(.*?)</p>`).FindStringSubmatch(page)
	if m == nil {
		return ""
	}
	return m[1]
}

// skillStates are `skills list --json`'s rows by id.
func skillStates(t *testing.T, e *testEnv) map[string]app.SkillRow {
	t.Helper()
	code, out, errOut := e.jarvis(t, "", "skills", "list", "--json")
	if code != 0 {
		t.Fatalf("skills list: %s", errOut)
	}
	var rows []app.SkillRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	got := map[string]app.SkillRow{}
	for _, r := range rows {
		got[r.ID] = r
	}
	return got
}

// TestDashboardSkillsSwitchAndInstallS5S6: over HTTP against serve, a
// skill switched off on the Skills tab is off for `skills list`, and a
// SKILL.md uploaded is shown in the CLI's consent view (control
// characters visible, the ignored fields listed) and installed only when
// confirmed, with the record `skills show` reads.
func TestDashboardSkillsSwitchAndInstallS5S6(t *testing.T) {
	e := newTestEnv(t)
	b, _ := serveTabs(t, e)
	if !skillStates(t, e)["skill:humanizer"].Enabled {
		t.Fatal("the shipped humanizer is not on to begin with")
	}
	res, page := b.get(t, "/skills")
	if res.StatusCode != http.StatusOK || !strings.Contains(page, `id="switch-humanizer"`) || !strings.Contains(page, "0 7 * * *") {
		t.Fatalf("the Skills tab: %s\n%s", res.Status, page)
	}
	res, _ = b.post(t, "/skills/humanizer/switch", url.Values{"on": {"false"}})
	if note := b.note(t, res); note != "skill:humanizer is off." {
		t.Errorf("switching off: %s, note %q", res.Status, note)
	}
	if skillStates(t, e)["skill:humanizer"].Enabled {
		t.Error("switched off on the dashboard, skills list still has it on")
	}

	text := "---\nname: packing-list\ndescription: Writes a packing list for a trip from its length and the weather.\nallowed-tools: Bash(rm:*)\n---\nAsk how many days, then list clothes \x1b[8mand hide this\x1b[0m by category.\n"
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("csrf", b.csrf)
	fw, _ := mw.CreateFormFile("file", "SKILL.md")
	_, _ = fw.Write([]byte(text))
	_ = mw.Close()
	res, page = b.send(t, "/skills/install", mw.FormDataContentType(), &buf)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("reading the upload: %s\n%s", res.Status, page)
	}
	for _, want := range []string{`id="skill-consent"`, `\x1b[8m`, "allowed-tools", "control or invisible character", "It will add instructions only"} {
		if !strings.Contains(page, want) {
			t.Errorf("the consent view lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "\x1b") {
		t.Error("the consent view carries a live escape character")
	}
	if _, ok := skillStates(t, e)["skill:packing-list"]; ok {
		t.Fatal("installed before the owner confirmed")
	}
	m := regexp.MustCompile(`name="text" value="([^"]*)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the consent form carries no text")
	}
	res, _ = b.post(t, "/skills/install/confirm", url.Values{"text": {m[1]}, "filename": {"SKILL.md"}, "confirm": {"yes"}})
	if note := b.note(t, res); !strings.Contains(note, "Installed skill:packing-list (on)") {
		t.Fatalf("confirming: %s, note %q", res.Status, note)
	}
	if r := skillStates(t, e)["skill:packing-list"]; !r.Enabled || r.Source != "yours" {
		t.Errorf("after the install, skills list has %+v", r)
	}
	if _, out, _ := e.jarvis(t, "", "skills", "show", "packing-list"); !strings.Contains(out, "allowed-tools") || !strings.Contains(out, "uploaded to the dashboard") {
		t.Errorf("skills show after the install:\n%s", out)
	}
	res, page = b.post(t, "/skills/install/confirm", url.Values{"text": {m[1]}, "filename": {"SKILL.md"}, "confirm": {"yes"}})
	if res.StatusCode != http.StatusConflict || !strings.Contains(page, `a skill named "packing-list" is installed already`) {
		t.Errorf("installing it twice: %s\n%s", res.Status, page)
	}
}

// TestDashboardPromotesAgentSkillS7: an agent's own skill is listed with
// its agent and promoted from the Skills tab as a draft, off, as `skills
// promote` does.
func TestDashboardPromotesAgentSkillS7(t *testing.T) {
	e := newTestEnv(t)
	b, _ := serveTabs(t, e)
	dir := filepath.Join(e.vars["JARVIS_DATA_DIR"], "agents", "default", "skills", "trip-notes")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: trip-notes\ndescription: Keeps notes of a trip day by day.\n---\nOne line a day.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, page := b.get(t, "/skills"); !strings.Contains(page, `id="promote-default-trip-notes"`) {
		t.Fatalf("the agent's skill is not offered for promotion:\n%s", page)
	}
	res, _ := b.post(t, "/skills/trip-notes/promote", url.Values{"agent": {"default"}})
	if note := b.note(t, res); !strings.Contains(note, "Promoted skill:trip-notes from agent default to all of jarvisbot as a draft (off)") {
		t.Errorf("promote: %s, note %q", res.Status, note)
	}
	if r := skillStates(t, e)["skill:trip-notes"]; r.Enabled || r.Source != "yours" {
		t.Errorf("after promoting, skills list has %+v", r)
	}
}

// TestDashboardInstallsFromURLWhatWasReadS6X2: a skill from a URL is
// installed only as the owner read it: when the file changed between the
// consent view and the confirmation, nothing is installed.
func TestDashboardInstallsFromURLWhatWasReadS6X2(t *testing.T) {
	e := newTestEnv(t)
	b, _ := serveTabs(t, e)
	var mu sync.Mutex
	served := "---\nname: plant-care\ndescription: Reminds me how often each plant wants water.\n---\nAsk which plant, then say.\n"
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		_, _ = io.WriteString(w, served)
	}))
	defer site.Close()
	src := site.URL + "/plant-care/SKILL.md"
	read := func() string {
		t.Helper()
		res, page := b.post(t, "/skills/install", url.Values{"url": {src}})
		m := regexp.MustCompile(`name="text" value="([^"]*)"`).FindStringSubmatch(page)
		if res.StatusCode != http.StatusOK || m == nil || !strings.Contains(page, "Reminds me how often") {
			t.Fatalf("reading %s: %s\n%s", src, res.Status, page)
		}
		return m[1]
	}
	carried := read()
	mu.Lock()
	served = strings.Replace(served, "Ask which plant", "Water every plant daily", 1)
	mu.Unlock()
	res, page := b.post(t, "/skills/install/confirm", url.Values{"text": {carried}, "url": {src}, "confirm": {"yes"}})
	if res.StatusCode != http.StatusConflict || !strings.Contains(page, "is not the text you read") {
		t.Errorf("confirming a changed file: %s\n%s", res.Status, page)
	}
	if _, ok := skillStates(t, e)["skill:plant-care"]; ok {
		t.Fatal("a file that changed since it was read was installed")
	}
	carried = read()
	res, _ = b.post(t, "/skills/install/confirm", url.Values{"text": {carried}, "url": {src}, "confirm": {"yes"}})
	if note := b.note(t, res); !strings.Contains(note, "Installed skill:plant-care (on)") {
		t.Errorf("confirming what was read: %s, note %q", res.Status, note)
	}
}
