package desk

import (
	"cmp"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jarvisbot/jarvisbot/store"
)

// maxRequest bounds an approval request's message below the smallest
// platform limit (Discord's 2,000 characters; Telegram's 4,096), so that
// the buttons always come with the whole of it, in one message.
const maxRequest = 1900

// requestText is an approval request as the owner reads it beside the
// buttons (CH2): what will happen and to what, the arguments that matter
// as labelled lines and the agent's reason (the request's Summary, written
// by the runtime), who asked, when it expires in the owner's zone, and
// where the whole arguments are.
func (d *Desk) requestText(a store.Approval) string {
	var tail strings.Builder
	fmt.Fprintf(&tail, "\nAsked by %s · %s", asker(a), markdownText(a.Tool))
	if base := strings.TrimRight(d.opt.DashboardURL, "/"); base != "" {
		fmt.Fprintf(&tail, "\nAll arguments: %s/approvals/%s", base, url.PathEscape(a.ID))
	}
	exp := a.ExpiresAt.In(cmp.Or(d.opt.Zone, time.Local))
	fmt.Fprintf(&tail, "\nApprove? It expires at %s", exp.Format("15:04 MST"))
	if !sameDay(exp, a.CreatedAt.In(exp.Location())) {
		tail.WriteString(exp.Format(" (Mon 2 Jan)"))
	}
	tail.WriteString(".")
	head := "Approval needed: "
	summary := markdownText(a.Summary)
	if room := maxRequest - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail.String()); utf8.RuneCountInString(summary) > room {
		summary = string([]rune(summary)[:max(room-1, 0)]) + "…"
	}
	return head + summary + tail.String()
}

// asker names who raised a request: the agent whose turn asked and, when
// an app's words were in that turn (its job, chat or note), the apps, so
// the owner sees whose request it really is (X5).
func asker(a store.Approval) string {
	who := "agent " + markdownText(a.Agent)
	if len(a.Apps) == 0 {
		return who
	}
	apps := make([]string, len(a.Apps))
	for i, app := range a.Apps {
		apps[i] = markdownText(app)
	}
	return who + " for app " + strings.Join(apps, ", app ")
}

func sameDay(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd
}

// markdownText escapes what the platforms would read as Markdown in text
// that is data (a page's text, a mail's subject, an argument): a masked
// link, a spoiler, emphasis or code would show the owner something other
// than what the call holds.
func markdownText(s string) string {
	lines := strings.Split(markdownEscaper.Replace(s), "\n")
	for i, line := range lines {
		lines[i] = blockMarker(line)
	}
	return strings.Join(lines, "\n")
}

// blockMarker escapes what would make a line a heading, a list item or a
// quote ("  # Groceries", "- milk"), so that a page's text shows as written.
func blockMarker(line string) string {
	body := strings.TrimLeft(line, " ")
	indent := line[:len(line)-len(body)]
	if body == "" {
		return line
	}
	switch body[0] {
	case '#', '-', '+', '>', '=':
		return indent + `\` + body
	}
	digits := len(body) - len(strings.TrimLeft(body, "0123456789"))
	if digits > 0 && digits < len(body) && (body[digits] == '.' || body[digits] == ')') {
		return indent + body[:digits] + `\` + body[digits:]
	}
	return line
}

var markdownEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `~`, `\~`, `|`, `\|`, `[`, `\[`, `]`, `\]`,
)
