package desk

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/channels"
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

// Approval buttons (CH2, X5): a request is drawn once where the owner
// wants it, only an approver's press decides it, once, and every message
// that drew it then shows the outcome and who decided.

// Button data: "ap:<id>:<y|n|a>", 31 bytes, an id into the store.
const buttonPrefix = "ap:"

// Notify draws a new approval request as buttons and, once it is decided
// or expired, edits the message to show the outcome without buttons. It
// is the approvals engine's Notify.
func (d *Desk) Notify(a store.Approval) {
	ctx := context.Background()
	if a.State == store.ApprovalPending {
		chat := d.approvalChat(a)
		text := d.requestText(a)
		buttons := [][]channels.Button{{
			{Label: "Approve", Data: buttonPrefix + a.ID + ":y", Keys: []string{"y", "yes"}},
			{Label: "Deny", Data: buttonPrefix + a.ID + ":n", Keys: []string{"n", "no"}},
		}, {
			{Label: "Always for this tool", Data: buttonPrefix + a.ID + ":a", Keys: []string{"a", "always"}},
		}}
		// Recorded before it is sent: a crash right after the send must not
		// draw a second prompt at the next start (Redraw).
		if err := d.opt.Store.SetApprovalMessage(ctx, a.ID, chat, ""); err != nil {
			d.log.Error("remembering the approval message", "approval", a.ID, "err", err)
		}
		id := d.send(ctx, channels.Outgoing{Chat: chat, Text: text, Buttons: buttons})
		var err error
		if id != "" {
			err = d.opt.Store.SetApprovalMessage(ctx, a.ID, chat, id)
		} else {
			err = d.opt.Store.ForgetApprovalMessage(ctx, a.ID, chat)
		}
		if err != nil {
			d.log.Error("remembering the approval message", "approval", a.ID, "err", err)
		}
		return
	}
	d.showOutcome(ctx, a)
}

// approvalChat is where a request's buttons go: the configured approvals
// chat, else the chat the request came from, else (no channel runs there:
// an app's job) the owner's main chat.
func (d *Desk) approvalChat(a store.Approval) string {
	if d.opt.ApprovalChat != "" {
		return d.opt.ApprovalChat
	}
	if _, ok := d.channels[platform(a.Chat)]; !ok && d.opt.MainChat != "" {
		return d.opt.MainChat
	}
	return a.Chat
}

// Redraw draws a request that outlived a restart only where it was never
// drawn: the owner's prompt from the last run keeps working (its buttons
// carry the request's id), so a second copy would only confuse. A request
// whose message could not be sent gets one now; one whose sending a crash
// cut short counts as drawn (it most likely went out).
func (d *Desk) Redraw(ctx context.Context, a store.Approval) {
	chat := d.approvalChat(a)
	msgs, err := d.opt.Store.ApprovalMessages(ctx, a.ID)
	if err != nil {
		d.log.Error("reading where an approval request was drawn; drawing it again", "approval", a.ID, "err", err)
	}
	// The console's messages end with the process that printed them: a
	// request drawn there before is asked again.
	if _, drawn := msgs[chat]; drawn && platform(chat) != "console" {
		return
	}
	d.Notify(a)
}

// outcome says how a request was decided and, when an app decided it over
// the MCP surface, which app: the owner's chat never shows an app's
// decision as the owner's (X5).
func outcome(a store.Approval) string {
	by := ""
	if app := a.DeciderApp(); app != "" {
		by = " by app " + app
	}
	switch a.State {
	case store.ApprovalApproved:
		if a.Always {
			return "Approved" + by + ", always for this tool"
		}
		return "Approved" + by
	case store.ApprovalDenied:
		return "Denied" + by
	case store.ApprovalExpired:
		return "Expired: nobody answered, so it was denied"
	}
	return string(a.State)
}

// showOutcome edits every message that drew the request.
func (d *Desk) showOutcome(ctx context.Context, a store.Approval) {
	msgs, err := d.opt.Store.ApprovalMessages(ctx, a.ID)
	if err != nil {
		return
	}
	text := fmt.Sprintf("%s — agent %s: %s\n(%s)", outcome(a), a.Agent, a.Summary, a.Tool)
	for chat, id := range msgs {
		if id == "" {
			continue // its sending was cut short: there is no message to edit
		}
		if ch, ok := d.channels[platform(chat)]; ok {
			if err := ch.Edit(ctx, chat, id, text, nil); err != nil {
				d.log.Warn("editing the approval message", "chat", chat, "err", err)
			}
		}
	}
}

// HandlePress takes a button press: only an approver decides, once; anyone
// else is told so and changes nothing; a late or second press sees the
// outcome.
func (d *Desk) HandlePress(ctx context.Context, p channels.Press) {
	if !d.first(ctx, p.Chat, p.Delivery) {
		return // the first delivery of this press answered it
	}
	answer := func(s string) {
		if p.Answer != nil {
			if err := p.Answer(ctx, s); err != nil {
				d.log.Warn("answering a button press", "chat", p.Chat, "err", err)
			}
		}
	}
	if plugin, ok := strings.CutPrefix(p.Data, renewPrefix); ok {
		d.renew(ctx, p, plugin, answer)
		return
	}
	if rest, ok := strings.CutPrefix(p.Data, budgetPrefix); ok {
		d.budgetPress(ctx, p, rest, answer)
		return
	}
	rest, ok := strings.CutPrefix(p.Data, buttonPrefix)
	id, choice, ok2 := strings.Cut(rest, ":")
	if !ok || !ok2 || len(id) > 64 || (choice != "y" && choice != "n" && choice != "a") {
		answer("This button is not mine, or no longer valid.")
		return
	}
	if d.opt.Approvals == nil || !d.opt.Approvals.IsApprover(p.User) {
		answer("Only the owner can decide this.")
		return
	}
	d.rememberPressed(ctx, id, p)
	a, err := d.opt.Approvals.Decide(ctx, id, p.User, choice != "n", choice == "a")
	switch jarvisbot.ErrorCode(err) {
	case "":
		answer(outcome(a))
	case jarvisbot.ECONFLICT:
		answer("Already decided: " + outcome(a))
		d.showOutcome(ctx, a)
	case jarvisbot.EFORBIDDEN:
		answer("Only the owner can decide this.")
	case jarvisbot.ENOTFOUND:
		answer("This request is unknown (it may be from another jarvisbot).")
	default:
		answer("The decision could not be saved; try again.")
		d.log.Error("deciding an approval", "err", err)
	}
}

// rememberPressed records the message a press came from when the record
// of where the request was drawn lacks it (a crash cut its sending
// short), so that the outcome is shown on the prompt the owner pressed.
func (d *Desk) rememberPressed(ctx context.Context, id string, p channels.Press) {
	if p.MessageID == "" {
		return
	}
	msgs, err := d.opt.Store.ApprovalMessages(ctx, id)
	if err != nil || msgs[p.Chat] != "" {
		return
	}
	if err := d.opt.Store.SetApprovalMessage(ctx, id, p.Chat, p.MessageID); err != nil {
		d.log.Warn("remembering the pressed approval message", "approval", id, "err", err)
	}
}
