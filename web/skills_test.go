package web

import (
	"bytes"
	"context"
	"encoding/base64"
	"html"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/jarvisbot/jarvisbot"
)

// skillBook is an in-test Skills: a few skills and their switches, and
// what was installed.
type skillBook struct {
	mu        sync.Mutex
	rows      []SkillRow
	installed []SkillSource
	learned   map[string][]MCPLearned
	forgot    []string // "skill word" of each Forget
}

func newSkillBook() *skillBook {
	return &skillBook{rows: []SkillRow{
		{Name: "morning-brief", Source: "shipped", Kind: "tools", On: true, State: "on", Schedule: "0 7 * * *", Description: "A short overview each morning."},
		{Name: "dictate", Source: "yours", Kind: "instructions", On: true, State: "on", Voice: true, Removable: true, Description: "Takes a note by voice."},
	}}
}

func (b *skillBook) List(context.Context) (SkillList, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return SkillList{Skills: append([]SkillRow(nil), b.rows...), Agents: []SkillRow{{Name: "tidy", Agent: "helper", Source: "agent", Kind: "instructions"}}}, nil
}

func (b *skillBook) Show(_ context.Context, agent, name string) (string, error) {
	return "skill:" + name + `  on, agent ` + agent + "\n\nbody with an escape \\x1b[31m", nil
}

func (b *skillBook) Switch(_ context.Context, name string, on bool) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := range b.rows {
		if b.rows[i].Name == name {
			b.rows[i].On = on
			b.rows[i].State = map[bool]string{true: "on", false: "off (switched off)"}[on]
			return "skill:" + name + " is " + map[bool]string{true: "on", false: "off"}[on] + ".", nil
		}
	}
	return "", jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no skill named %q (see jarvisbot skills list)", name)
}

func (b *skillBook) Read(_ context.Context, in SkillSource) (SkillConsent, error) {
	if in.URL != "" {
		return SkillConsent{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "download %s: the server answered 404 Not Found", in.URL)
	}
	return SkillConsent{Name: "notes", View: "The skill \"notes\" in full:\n" + in.Text, Dropped: []string{"allowed-tools: grants tools"}, Dest: "/data/skills/notes", Source: in}, nil
}

func (b *skillBook) Install(_ context.Context, in SkillSource) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.installed = append(b.installed, in)
	return "Installed skill:notes (on).", nil
}

func (b *skillBook) Promote(_ context.Context, agent, name string) (string, error) {
	return "Promoted skill:" + name + " from agent " + agent + " to all of jarvisbot as a draft (off).", nil
}

func (b *skillBook) Remove(_ context.Context, name string) (string, error) {
	return "Removed skill:" + name + ".", nil
}

func (b *skillBook) Learned(_ context.Context, name string) ([]MCPLearned, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.learned[name], nil
}

func (b *skillBook) Forget(_ context.Context, name, word string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.forgot = append(b.forgot, name+" "+word)
	return "The skill " + name + " no longer enters a turn on \"" + word + "\".", nil
}

// postWith sends a prepared POST with the session.
func (d *dashboard) postWith(t *testing.T, path, contentType string, body io.Reader, c *http.Cookie, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, d.srv.URL+path, body)
	req.Header.Set("Content-Type", contentType)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	req.AddCookie(c)
	return send(t, req)
}

func encoded(v url.Values) io.Reader { return strings.NewReader(v.Encode()) }

const formType = "application/x-www-form-urlencoded"

// TestSkillsTabListsAndSwitchesS5: every skill with its switch, source,
// kind, clock and microphone marks; a switch posted without JavaScript
// redirects back with the command's words, with htmx it answers with the
// row alone, switched.
func TestSkillsTabListsAndSwitchesS5(t *testing.T) {
	book := newSkillBook()
	d, sess, csrf := dashboardSignedIn(t, Options{Skills: book})
	body := d.page(t, "/skills", sess)
	wantIn(t, "the list", body, `id="switch-morning-brief"`, `id="skill-morning-brief"`, `hx-target="#skill-morning-brief"`, `hx-swap="outerHTML"`,
		`name="on" value="false"`, "0 7 * * *", "skill-clock", "skill-voice", "shipped", "tools", `id="remove-dictate"`, `id="skill-install"`,
		`name="url"`, `name="file"`, `id="promote-helper-tidy"`, `name="csrf" value="`+csrf+`"`)
	if strings.Contains(body, `id="remove-morning-brief"`) {
		t.Error("a shipped skill offers Remove")
	}

	res, _ := d.postWith(t, "/skills/morning-brief/switch", formType, encoded(url.Values{"csrf": {csrf}, "on": {"false"}}), sess, nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/skills" {
		t.Fatalf("switch off: %s to %q", res.Status, res.Header.Get("Location"))
	}
	note := cookieOf(res, flashCookie)
	if note == nil || decodeNote(note.Value) != "skill:morning-brief is off." {
		t.Errorf("the note is %+v", note)
	}

	res, body = d.postWith(t, "/skills/morning-brief/switch", formType, encoded(url.Values{"on": {"true"}}), sess, map[string]string{"HX-Request": "true", "X-CSRF-Token": csrf})
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(strings.TrimSpace(body), `<tr id="skill-morning-brief">`) || strings.Contains(body, "<html") || !strings.Contains(body, `name="on" value="false"`) {
		t.Errorf("htmx switch on: %s\n%s", res.Status, body)
	}

	res, body = d.postWith(t, "/skills/nope/switch", formType, encoded(url.Values{"csrf": {csrf}, "on": {"true"}}), sess, nil)
	if res.StatusCode != http.StatusNotFound || !strings.Contains(html.UnescapeString(body), `no skill named "nope" (see jarvisbot skills list)`) {
		t.Errorf("unknown skill: %s\n%s", res.Status, body)
	}
}

// TestSkillsTabInstallShowsConsentFirstS6: an uploaded file is shown in
// the consent view with its ignored fields, nothing installed; the
// confirm form carries the text byte for byte (line endings and control
// characters included), and installing gets exactly that text.
func TestSkillsTabInstallShowsConsentFirstS6(t *testing.T) {
	book := newSkillBook()
	d, sess, csrf := dashboardSignedIn(t, Options{Skills: book})
	text := "---\r\nname: notes\r\ndescription: Takes notes.\r\nallowed-tools: Bash\r\n---\r\nA bell \a and an escape \x1b[2J.\r\n"
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("csrf", csrf)
	fw, _ := mw.CreateFormFile("file", "SKILL.md")
	_, _ = fw.Write([]byte(text))
	_ = mw.WriteField("url", "")
	_ = mw.Close()
	res, body := d.postWith(t, "/skills/install", mw.FormDataContentType(), &buf, sess, nil)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("reading the upload: %s\n%s", res.Status, body)
	}
	wantIn(t, "the consent view", body, `id="skill-consent"`, `name="confirm"`, "allowed-tools: grants tools", "Install it into /data/skills/notes")
	if len(book.installed) != 0 {
		t.Fatal("installed before the owner agreed")
	}
	m := regexp.MustCompile(`name="text" value="([^"]*)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no carried text in\n%s", body)
	}
	carried := html.UnescapeString(m[1])
	if got, err := base64.StdEncoding.DecodeString(carried); err != nil || string(got) != text {
		t.Fatalf("the form carries %q (%v), not the file", got, err)
	}
	res, _ = d.postWith(t, "/skills/install/confirm", formType, encoded(url.Values{"csrf": {csrf}, "text": {carried}, "filename": {"SKILL.md"}, "confirm": {"yes"}}), sess, nil)
	if res.StatusCode != http.StatusSeeOther || len(book.installed) != 1 || book.installed[0].Text != text || book.installed[0].FileName != "SKILL.md" {
		t.Fatalf("confirm: %s, installed %+v", res.Status, book.installed)
	}
}

// TestSkillsTabInstallRefusalsX1: the form takes a URL only, never a path
// on this machine; what the command refuses is shown in its words.
func TestSkillsTabInstallRefusalsX1(t *testing.T) {
	d, sess, csrf := dashboardSignedIn(t, Options{Skills: newSkillBook()})
	for _, tc := range []struct {
		url    string
		status int
		want   string
	}{
		{"/etc/passwd", http.StatusBadRequest, "use an https URL"},
		{"file:///etc/passwd", http.StatusBadRequest, "use an https URL"},
		{"", http.StatusBadRequest, "choose a SKILL.md file or give its https URL"},
		{"https://example.test/x/SKILL.md", http.StatusServiceUnavailable, "the server answered 404 Not Found"},
	} {
		res, body := d.postWith(t, "/skills/install", formType, encoded(url.Values{"csrf": {csrf}, "url": {tc.url}}), sess, nil)
		if res.StatusCode != tc.status || !strings.Contains(html.UnescapeString(body), tc.want) {
			t.Errorf("%q: %s\n%s", tc.url, res.Status, body)
		}
	}
	res, body := d.postWith(t, "/skills/install/confirm", formType, encoded(url.Values{"csrf": {csrf}, "text": {"not base64!"}, "confirm": {"yes"}}), sess, nil)
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "open it again") {
		t.Errorf("a confirm without the text: %s\n%s", res.Status, body)
	}
}

// TestSkillPageShowsFullTextS6: a skill's page shows the command's text,
// its escapes as text, and promote and remove answer with the command's
// words.
func TestSkillPageShowsFullTextS6(t *testing.T) {
	d := newDashboard(t, Options{Skills: newSkillBook()})
	sess := d.signIn(t)
	res, body := d.get(t, "/skills/dictate?agent=helper", sess)
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `id="skill-text"`) || !strings.Contains(body, `\x1b[31m`) || !strings.Contains(body, "agent helper") {
		t.Errorf("show: %s\n%s", res.Status, body)
	}
	csrf := csrfOf(sess.Value)
	for path, want := range map[string]string{"/skills/tidy/promote": "from agent helper", "/skills/dictate/remove": "Removed skill:dictate."} {
		res, _ := d.postWith(t, path, formType, encoded(url.Values{"csrf": {csrf}, "agent": {"helper"}}), sess, nil)
		note := noteOf(res)
		if res.StatusCode != http.StatusSeeOther || !strings.Contains(note, want) {
			t.Errorf("%s: %s, note %q", path, res.Status, note)
		}
	}
}

// TestSkillsTabUnavailableW1: without a backend the tab says so.
func TestSkillsTabUnavailableW1(t *testing.T) {
	d := newDashboard(t, Options{})
	if res, _ := d.get(t, "/skills", d.signIn(t)); res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("answered %s", res.Status)
	}
}

// TestSkillPageListsAndForgetsLearnedWordsC9: a skill's page lists the
// words learned for it, each with a Remove button that posts that word,
// and a button that forgets them all; a skill without any shows none.
func TestSkillPageListsAndForgetsLearnedWordsC9(t *testing.T) {
	book := newSkillBook()
	book.learned = map[string][]MCPLearned{"dictate": {{Word: "bewerbung", Note: "2 turns"}, {Word: "kanzlei", Note: "1 turn; offered and ignored 2 times"}}}
	d := newDashboard(t, Options{Skills: book})
	sess := d.signIn(t)
	_, body := d.get(t, "/skills/dictate", sess)
	wantIn(t, "the skill's page", body, `id="skill-learned"`, `data-word="bewerbung"`, "(2 turns)", `data-word="kanzlei"`, "(1 turn; offered and ignored 2 times)",
		`action="/skills/dictate/forget"`, `name="word" value="kanzlei"`, "Forget them all")
	if _, other := d.get(t, "/skills/morning-brief", sess); strings.Contains(other, `id="skill-learned"`) {
		t.Error("a skill with no learned words lists some")
	}
	csrf := csrfOf(sess.Value)
	for _, word := range []string{"kanzlei", ""} {
		res, _ := d.postWith(t, "/skills/dictate/forget", formType, encoded(url.Values{"csrf": {csrf}, "word": {word}}), sess, nil)
		if note := noteOf(res); res.StatusCode != http.StatusSeeOther || !strings.Contains(note, "no longer enters a turn") {
			t.Errorf("forgetting %q: %s, note %q", word, res.Status, note)
		}
	}
	if got := strings.Join(book.forgot, "|"); got != "dictate kanzlei|dictate " {
		t.Errorf("the backend was asked to forget %q", got)
	}
}
