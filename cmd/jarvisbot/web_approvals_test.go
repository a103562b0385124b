package main

import (
	"bufio"
	"context"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
)

// ownerBrowser is the owner's browser, signed in to the dashboard serve
// serves: it keeps the session cookie and sends the page's CSRF token.
type ownerBrowser struct {
	t    *testing.T
	base string
	c    *http.Client
	csrf string
}

// serveWithDashboard starts serve with the dashboard on and the owner
// signed in.
func serveWithDashboard(t *testing.T, e *testEnv) (*ownerBrowser, *syncBuffer, func()) {
	t.Helper()
	o := signedInDashboard(t, e)
	return &ownerBrowser{t: t, base: o.base, csrf: o.csrf, c: &http.Client{Jar: o.jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}, o.out, o.stop
}

// get fetches a page; it keeps the page's CSRF token for the next post.
func (b *ownerBrowser) get(path string) (int, string) {
	b.t.Helper()
	res, err := b.c.Get(b.base + path)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if m := csrfField.FindSubmatch(body); m != nil {
		b.csrf = string(m[1])
	}
	return res.StatusCode, string(body)
}

// post sends a form as the page's would, with the CSRF token.
func (b *ownerBrowser) post(path string, form url.Values) *http.Response {
	b.t.Helper()
	if b.csrf != "" {
		form.Set("csrf", b.csrf)
	}
	res, err := b.c.PostForm(b.base+path, form)
	if err != nil {
		b.t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// note is the note the page shows after a change.
func (b *ownerBrowser) note(path string) string {
	b.t.Helper()
	_, body := b.get(path)
	m := regexp.MustCompile(`(?s)<p class="note" role="status">(.*?)</p>`).FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

// requestOf is the request id in an approval button's data (ap:ID:y).
func requestOf(data string) string {
	id, _, _ := strings.Cut(strings.TrimPrefix(data, "ap:"), ":")
	return id
}

// TestDashboardApprovesAChatRequestOnceW1C2: an ask-tier call raised from
// Telegram waits on the dashboard's Approvals page; approving it there
// runs the tool through the engine as the owner (console:dashboard), the
// chat's prompt shows the outcome, the live board sends the call, and the
// board shows who decided. The chat's press that comes second answers
// "already decided"; so does the browser when the chat decided first.
func TestDashboardApprovesAChatRequestOnceW1C2(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	e.mustJarvis(t, "", "cli", "add", "echo")
	b, out, stop := serveWithDashboard(t, e)
	defer stop()

	// The live board, from now, for the one tool.
	if code, _ := b.get("/activity"); code != http.StatusOK {
		t.Fatalf("activity: %d", code)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.base+"/activity/stream?tool=cli:echo", nil)
	stream, err := b.c.Do(req)
	if err != nil || stream.StatusCode != http.StatusOK {
		t.Fatalf("the live board: %v %v", stream, err)
	}
	defer stream.Body.Close()
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		r := bufio.NewReader(stream.Body)
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				return
			}
			lines <- l
		}
	}()

	f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("cli:echo"), Input: `{"args":["hello","from","the","browser"]}`}}}, fakellm.Step{Text: "Echo ran after the browser said yes."})
	tg.SendText(42, 42, "echo something")
	msg, approve := approvalPrompt(t, tg, "the approval prompt", "hello")
	id := requestOf(approve)

	code, body := b.get("/approvals")
	if code != http.StatusOK || !strings.Contains(body, `id="approval-`+id+`"`) || !strings.Contains(body, "hello") || !strings.Contains(body, "telegram:42") {
		t.Fatalf("the request is not on the Approvals page: %d\n%s", code, body)
	}
	if res := b.post("/approvals/"+id, url.Values{"decision": {"approve"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("approve: %s", res.Status)
	}
	if note := b.note("/approvals"); !strings.HasPrefix(note, "Approved: ") {
		t.Errorf("after approving: note %q", note)
	}
	waitSent(t, tg, "the answer after the browser's approval", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Echo ran after the browser said yes.") })
	if m, ok := tg.Message(42, msg); !ok || !strings.Contains(m.Text, "Approved") || len(m.Buttons) != 0 {
		t.Errorf("the chat's prompt after the browser's decision: %+v", m)
	}

	// The live board sent the call as it was recorded.
	var seen strings.Builder
	deadline := time.After(15 * time.Second)
	for !strings.Contains(seen.String(), `data-tool="cli:echo" data-outcome="ok"`) {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the live board ended:\n%s", seen.String())
			}
			seen.WriteString(l)
		case <-deadline:
			t.Fatalf("the live board did not send the call:\n%s", seen.String())
		}
	}
	if !strings.Contains(seen.String(), "event: row") {
		t.Errorf("the call came as no row event:\n%s", seen.String())
	}

	// The board shows the call and who decided.
	_, board := b.get("/activity")
	if !strings.Contains(board, `data-tool="cli:echo" data-outcome="ok"`) || !strings.Contains(board, `data-tool="cli:echo" data-outcome="approved"`) || !strings.Contains(board, "<td>console:dashboard</td>") {
		t.Errorf("the board lacks the call or its decision:\n%s", board)
	}
	if _, cliOut, _ := e.jarvis(t, "", "activity"); !strings.Contains(cliOut, "console:dashboard") {
		t.Errorf("jarvisbot activity does not show who decided:\n%s", cliOut)
	}

	// The chat's button, second: already decided.
	tg.Press(42, 42, msg, approve)
	if a := tg.WaitAnswers(t, 1, 15*time.Second); !strings.Contains(a[0].Text, "Already decided") {
		t.Errorf("the chat's second press answered %q", a[0].Text)
	}
	// The browser's press, second too: a note, not a failure.
	if res := b.post("/approvals/"+id, url.Values{"decision": {"deny"}}); res.StatusCode != http.StatusSeeOther {
		t.Errorf("a second browser press: %s", res.Status)
	}
	if note := b.note("/approvals"); !strings.HasPrefix(note, "Already decided: approved by console:dashboard") {
		t.Errorf("a second browser press: note %q", note)
	}

	// The chat decides first; the browser's press loses.
	f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("cli:echo"), Input: `{"args":["second"]}`}}}, fakellm.Step{Text: "Not echoed."})
	tg.SendText(42, 42, "echo again")
	msg2, approve2 := approvalPrompt(t, tg, "the second approval prompt", "second")
	id2 := requestOf(approve2)
	tg.Press(42, 42, msg2, "ap:"+id2+":n")
	waitSent(t, tg, "the answer after the chat's denial", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Not echoed.") })
	if res := b.post("/approvals/"+id2, url.Values{"decision": {"approve"}}); res.StatusCode != http.StatusSeeOther {
		t.Errorf("the browser after the chat: %s", res.Status)
	}
	if note := b.note("/approvals"); !strings.HasPrefix(note, "Already decided: denied by telegram:42") {
		t.Errorf("the browser after the chat: note %q", note)
	}

	// Stopping serve ends the live board too.
	stop()
	select {
	case <-drain(lines):
	case <-time.After(15 * time.Second):
		t.Errorf("the live board outlived serve:\n%s", out.String())
	}
}

// drain reads lines until they end.
func drain(lines <-chan string) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		for range lines {
		}
		close(done)
	}()
	return done
}
