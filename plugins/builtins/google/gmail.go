package google

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/native"
)

// defaultQuery is what search_mail looks at when the model gives no query.
const defaultQuery = "in:inbox"

// readBody bounds one message's text in read_message, so its headers and
// attachment list always fit in native.MaxResult.
const readBody = 6000

// fetchers is how many messages search_mail reads at once: a page of 50
// is not 50 round trips in a row, and Gmail's per-user rate stays far.
const fetchers = 4

// GmailTools returns the Gmail plugin's tools, acting for the signed-in
// user.
func GmailTools(o Options) []native.Tool {
	g := &gmailTools{o: o}
	const oneOf = `"message_id":{"type":"string","description":"id of one message (from search_mail)"},"thread_id":{"type":"string","description":"id of a whole conversation (from search_mail); give this or message_id"}`
	const compose = `"to":{"type":"string","description":"recipients, comma-separated, e.g. Ann Lee <ann@example.com>, bob@example.com"},"cc":{"type":"string","description":"copy recipients, comma-separated"},"subject":{"type":"string"},"body":{"type":"string","description":"the text of the mail, plain text"}`
	return []native.Tool{
		{
			Name: "search_mail",
			Description: "Search the owner's Gmail with Gmail search syntax (from:ann subject:invoice is:unread in:inbox label:work after:2026/01/31 has:attachment, plain words); without a query it lists the newest mail in the inbox. " +
				"One line per message, newest first: date, sender, subject, snippet, unread mark, message id and thread id for read_message, read_thread, reply, label and archive.",
			Schema: `{"type":"object","properties":{"query":{"type":"string","description":"Gmail search; empty: in:inbox"},"limit":{"type":"integer","minimum":1,"maximum":50,"description":"messages per page, default 10"},"page_token":{"type":"string","description":"from the previous result, for the next page"}},"additionalProperties":false}`,
			Tier:   catalog.TierSafe,
			Run:    g.search,
		},
		{
			Name:        "read_message",
			Description: "Read one mail as plain text: From, To, Cc, Date, Subject, the text, and the attachments by name, type and size (not their content).",
			Schema:      `{"type":"object","properties":{"message_id":{"type":"string"}},"required":["message_id"],"additionalProperties":false}`,
			Tier:        catalog.TierSafe,
			Run:         g.readMessage,
		},
		{
			Name:        "read_thread",
			Description: "Read a conversation: its messages oldest first, each shortened, quoted earlier mails left out.",
			Schema:      `{"type":"object","properties":{"thread_id":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":50,"description":"the latest messages to show, default 10"}},"required":["thread_id"],"additionalProperties":false}`,
			Tier:        catalog.TierSafe,
			Run:         g.readThread,
		},
		{
			Name:        "draft_mail",
			Description: "Save a new mail as a draft in the owner's Gmail, not sent; the owner can review and send it there.",
			Schema:      `{"type":"object","properties":{` + compose + `},"required":["to","body"],"additionalProperties":false}`,
			Tier:        catalog.TierMonitor,
			Run:         g.draft,
			Describe:    g.describeDraft,
		},
		{
			Name:        "send_mail",
			Description: "Send a new mail from the owner's Gmail. To answer a mail, use reply instead, which keeps the conversation together.",
			Schema:      `{"type":"object","properties":{` + compose + `},"required":["to","body"],"additionalProperties":false}`,
			Tier:        catalog.TierAsk,
			Run:         g.send,
			Describe:    g.describeSend,
		},
		{
			Name:        "reply",
			Description: "Send a reply to a mail, in its conversation, to its sender (reply_all: also to the other recipients). The subject is the original's with Re:.",
			Schema:      `{"type":"object","properties":{"message_id":{"type":"string","description":"the mail to answer"},"body":{"type":"string","description":"the text of the reply, plain text"},"reply_all":{"type":"boolean","description":"also to everyone else the mail went to"}},"required":["message_id","body"],"additionalProperties":false}`,
			Tier:        catalog.TierAsk,
			Run:         g.reply,
			Describe:    g.describeReply,
		},
		{
			Name:        "label",
			Description: "Add and/or remove Gmail labels by name on a message or a whole conversation (also STARRED, UNREAD, IMPORTANT: remove UNREAD to mark as read).",
			Schema:      `{"type":"object","properties":{` + oneOf + `,"add":{"type":"array","items":{"type":"string"},"description":"label names to add"},"remove":{"type":"array","items":{"type":"string"},"description":"label names to remove"}},"additionalProperties":false}`,
			Tier:        catalog.TierMonitor,
			Run:         g.label,
			Describe:    g.describeLabel,
		},
		{
			Name:        "archive",
			Description: "Archive a message or a whole conversation: take it out of the inbox; it stays in All Mail and its labels.",
			Schema:      `{"type":"object","properties":{` + oneOf + `},"additionalProperties":false}`,
			Tier:        catalog.TierMonitor,
			Run:         g.archive,
			Describe:    g.describeArchive,
		},
	}
}

type gmailTools struct{ o Options }

// when shows a message's time in the owner's zone.
func (g *gmailTools) when(m *message) string {
	return time.UnixMilli(m.InternalDate).In(g.o.loc()).Format("Mon 2 Jan 2006 15:04")
}

func unread(m *message) string {
	if slices.Contains(m.LabelIDs, "UNREAD") {
		return " [unread]"
	}
	return ""
}

func (g *gmailTools) search(ctx context.Context, raw json.RawMessage) (string, error) {
	var a struct {
		Query     string `json:"query"`
		Limit     int    `json:"limit"`
		PageToken string `json:"page_token"`
	}
	if err := native.Decode(raw, &a); err != nil {
		return "", err
	}
	q := strings.TrimSpace(a.Query)
	if q == "" {
		q = defaultQuery
	}
	svc := g.o.gmailAPI()
	list, err := svc.listMessages(ctx, q, native.Limit(a.Limit, 10, 50), a.PageToken)
	if err != nil {
		return "", apiError(err, fmt.Sprintf("search mail for %q", q))
	}
	if len(list.Messages) == 0 {
		if a.PageToken != "" {
			return fmt.Sprintf("No more mail matches %q.", q), nil
		}
		return fmt.Sprintf("No mail matches %q.", q), nil
	}
	ids := make([]string, len(list.Messages))
	for i, m := range list.Messages {
		ids[i] = m.ID
	}
	msgs, err := g.metadata(ctx, svc, ids)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Mail matching %q, newest first:\n", q)
	for i, m := range msgs {
		h := headers(m.Payload)
		subject := native.OneLine(h.get("Subject"))
		if subject == "" {
			subject = "(no subject)"
		}
		fmt.Fprintf(&b, "%d. %s · %s · %s · %s%s (id %s, thread %s)\n", i+1, g.when(m),
			native.OneLine(h.get("From")), subject, native.OneLine(html.UnescapeString(m.Snippet)), unread(m), m.ID, m.ThreadID)
	}
	if list.NextPageToken != "" {
		fmt.Fprintf(&b, "More mail matches: call search_mail again with page_token %q.\n", list.NextPageToken)
	}
	return b.String(), nil
}

// metadata reads the headers of the messages with ids, a few at a time,
// in their order.
func (g *gmailTools) metadata(ctx context.Context, svc gmailAPI, ids []string) ([]*message, error) {
	out := make([]*message, len(ids))
	errs := make([]error, len(ids))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, fetchers)
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			defer func() { <-sem }()
			out[i], errs[i] = svc.getMessage(ctx, id, "metadata", "From", "Subject", "Date")
			if errs[i] != nil {
				cancel() // one failure fails the page; the others need not finish
			}
		})
	}
	wg.Wait()
	// A failure is reported before the cancellations it caused.
	for _, canceled := range []bool{false, true} {
		for i, err := range errs {
			if err != nil && errors.Is(err, context.Canceled) == canceled {
				return nil, apiError(err, "read message "+ids[i])
			}
		}
	}
	return out, nil
}

func (g *gmailTools) readMessage(ctx context.Context, raw json.RawMessage) (string, error) {
	var a struct {
		MessageID string `json:"message_id"`
	}
	if err := native.Decode(raw, &a); err != nil {
		return "", err
	}
	if a.MessageID == "" {
		return "", native.Need("message_id")
	}
	m, err := g.o.gmailAPI().getMessage(ctx, a.MessageID, "full")
	if err != nil {
		return "", apiError(err, "read message "+a.MessageID)
	}
	h := headers(m.Payload)
	var b strings.Builder
	fmt.Fprintf(&b, "Message %s in thread %s%s\n", m.ID, m.ThreadID, unread(m))
	for _, k := range []string{"From", "To", "Cc"} {
		if v := h.get(k); v != "" {
			fmt.Fprintf(&b, "%s: %s\n", k, native.OneLine(v))
		}
	}
	fmt.Fprintf(&b, "Date: %s\n", g.when(m))
	fmt.Fprintf(&b, "Subject: %s\n", native.OneLine(h.get("Subject")))
	body := readParts(m.Payload)
	if len(body.attachments) > 0 {
		b.WriteString("Attachments (not downloaded):\n")
		for i, at := range body.attachments {
			fmt.Fprintf(&b, "%d. %s (%s, %s)\n", i+1, at.name, at.mimeType, size(at.size))
		}
	}
	b.WriteString("\n")
	text := body.text()
	if text == "" {
		text = "(no text)"
	}
	b.WriteString(native.Clip(text, readBody))
	return b.String(), nil
}

func (g *gmailTools) readThread(ctx context.Context, raw json.RawMessage) (string, error) {
	var a struct {
		ThreadID string `json:"thread_id"`
		Limit    int    `json:"limit"`
	}
	if err := native.Decode(raw, &a); err != nil {
		return "", err
	}
	if a.ThreadID == "" {
		return "", native.Need("thread_id")
	}
	t, err := g.o.gmailAPI().getThread(ctx, a.ThreadID)
	if err != nil {
		return "", apiError(err, "read thread "+a.ThreadID)
	}
	msgs := slices.Clone(t.Messages)
	slices.SortStableFunc(msgs, func(x, y *message) int { return cmp.Compare(x.InternalDate, y.InternalDate) })
	var b strings.Builder
	subject := ""
	if len(msgs) > 0 {
		subject = native.OneLine(headers(msgs[0].Payload).get("Subject"))
	}
	fmt.Fprintf(&b, "Thread %s: %q, %d messages, oldest first.\n", t.ID, subject, len(msgs))
	n := native.Limit(a.Limit, 10, 50)
	if len(msgs) > n {
		fmt.Fprintf(&b, "(%d earlier messages not shown.)\n", len(msgs)-n)
		msgs = msgs[len(msgs)-n:]
	}
	// Each message gets an equal share of the result, so the latest one is
	// never the part that is cut off.
	share := max((native.MaxResult-b.Len()-200)/len(msgs)-200, 300)
	for i, m := range msgs {
		h := headers(m.Payload)
		fmt.Fprintf(&b, "\n%d. %s · from %s · to %s%s (id %s)\n", i+1, g.when(m),
			native.OneLine(h.get("From")), native.OneLine(h.get("To")), unread(m), m.ID)
		text := dropQuoted(readParts(m.Payload).text())
		if text == "" {
			text = "(no text)"
		}
		b.WriteString(native.Clip(text, share))
		b.WriteString("\n")
	}
	return b.String(), nil
}

type composeArgs struct {
	To      string `json:"to"`
	Cc      string `json:"cc"`
	Subject string `json:"subject"`
	Body    string `json:"body"`
}

// mail reads a new mail's arguments into an outgoing message from owner.
func (a composeArgs) mail() (outgoing, error) {
	if strings.TrimSpace(a.To) == "" {
		return outgoing{}, native.Need("to")
	}
	if strings.TrimSpace(a.Body) == "" {
		return outgoing{}, native.Need("body")
	}
	if err := oneLine("subject", a.Subject); err != nil {
		return outgoing{}, err
	}
	to, err := addresses("to", a.To)
	if err != nil {
		return outgoing{}, err
	}
	cc, err := addresses("cc", a.Cc)
	if err != nil {
		return outgoing{}, err
	}
	return outgoing{to: to, cc: cc, subject: a.Subject, body: a.Body}, nil
}

func (g *gmailTools) draft(ctx context.Context, raw json.RawMessage) (string, error) {
	var a composeArgs
	if err := native.Decode(raw, &a); err != nil {
		return "", err
	}
	out, err := a.mail()
	if err != nil {
		return "", err
	}
	svc := g.o.gmailAPI()
	if out.from, err = owner(ctx, svc); err != nil {
		return "", err
	}
	d, err := svc.createDraft(ctx, &draft{Message: &rawMessage{Raw: out.raw(g.o.now())}})
	if err != nil {
		return "", apiError(err, "save the draft")
	}
	return fmt.Sprintf("Saved a draft to %s: %q (draft id %s). It is not sent; the owner can review and send it in Gmail.", out.recipients(), out.subject, d.ID), nil
}

func (g *gmailTools) send(ctx context.Context, raw json.RawMessage) (string, error) {
	var a composeArgs
	if err := native.Decode(raw, &a); err != nil {
		return "", err
	}
	out, err := a.mail()
	if err != nil {
		return "", err
	}
	return g.deliver(ctx, g.o.gmailAPI(), out, "")
}

// deliver sends out, in thread when one is given.
func (g *gmailTools) deliver(ctx context.Context, svc gmailAPI, out outgoing, thread string) (string, error) {
	var err error
	if out.from, err = owner(ctx, svc); err != nil {
		return "", err
	}
	m, err := svc.send(ctx, &rawMessage{Raw: out.raw(g.o.now()), ThreadID: thread})
	if err != nil {
		// A failed send is not tried again here: Google may have sent it.
		return "", apiError(err, fmt.Sprintf("send the mail to %s (it may or may not have gone out; look in Sent before sending again)", out.recipients()))
	}
	return fmt.Sprintf("Sent to %s: %q (message id %s, thread %s).", out.recipients(), out.subject, m.ID, m.ThreadID), nil
}

// owner is the signed-in user's address, the From of what the tools send.
func owner(ctx context.Context, svc gmailAPI) (string, error) {
	addr, err := svc.address(ctx)
	if err != nil {
		return "", apiError(err, "read the owner's Gmail address")
	}
	return addr, nil
}

func (g *gmailTools) reply(ctx context.Context, raw json.RawMessage) (string, error) {
	var a struct {
		MessageID string `json:"message_id"`
		Body      string `json:"body"`
		ReplyAll  bool   `json:"reply_all"`
	}
	if err := native.Decode(raw, &a); err != nil {
		return "", err
	}
	if a.MessageID == "" {
		return "", native.Need("message_id")
	}
	if strings.TrimSpace(a.Body) == "" {
		return "", native.Need("body")
	}
	svc := g.o.gmailAPI()
	orig, err := svc.getMessage(ctx, a.MessageID, "metadata", "From", "To", "Cc", "Reply-To", "Subject", "Message-ID", "References")
	if err != nil {
		return "", apiError(err, "read message "+a.MessageID+" to reply to")
	}
	self, err := owner(ctx, svc)
	if err != nil {
		return "", err
	}
	out, err := replyTo(headers(orig.Payload), self, a.ReplyAll)
	if err != nil {
		return "", jarvisbot.Errorf(jarvisbot.ECONFLICT, "reply to message %s: %w", a.MessageID, err)
	}
	out.body = a.Body
	return g.deliver(ctx, svc, out, orig.ThreadID)
}

func (g *gmailTools) label(ctx context.Context, raw json.RawMessage) (string, error) {
	var a struct {
		target
		Add    []string `json:"add"`
		Remove []string `json:"remove"`
	}
	if err := native.Decode(raw, &a); err != nil {
		return "", err
	}
	if err := a.check(); err != nil {
		return "", err
	}
	if len(a.Add)+len(a.Remove) == 0 {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "add or remove is required: the label names to change")
	}
	svc := g.o.gmailAPI()
	ls, err := svc.labels(ctx)
	if err != nil {
		return "", apiError(err, "list the labels")
	}
	add, err := labelIDs(ls, a.Add)
	if err != nil {
		return "", err
	}
	remove, err := labelIDs(ls, a.Remove)
	if err != nil {
		return "", err
	}
	if err := a.modify(ctx, svc, add, remove); err != nil {
		return "", err
	}
	var did []string
	if len(a.Add) > 0 {
		did = append(did, "added "+strings.Join(a.Add, ", "))
	}
	if len(a.Remove) > 0 {
		did = append(did, "removed "+strings.Join(a.Remove, ", "))
	}
	return fmt.Sprintf("Labels of %s: %s.", a.what(), strings.Join(did, "; ")), nil
}

func (g *gmailTools) archive(ctx context.Context, raw json.RawMessage) (string, error) {
	var a target
	if err := native.Decode(raw, &a); err != nil {
		return "", err
	}
	if err := a.check(); err != nil {
		return "", err
	}
	if err := a.modify(ctx, g.o.gmailAPI(), nil, []string{"INBOX"}); err != nil {
		return "", err
	}
	return fmt.Sprintf("Archived %s: it is out of the inbox and stays in All Mail.", a.what()), nil
}

// target is a message or a whole thread, for label and archive.
type target struct {
	MessageID string `json:"message_id"`
	ThreadID  string `json:"thread_id"`
}

func (t target) check() error {
	switch {
	case t.MessageID == "" && t.ThreadID == "":
		return jarvisbot.Errorf(jarvisbot.EINVALID, "message_id or thread_id is required")
	case t.MessageID != "" && t.ThreadID != "":
		return jarvisbot.Errorf(jarvisbot.EINVALID, "give message_id or thread_id, not both")
	}
	return nil
}

func (t target) what() string {
	if t.ThreadID != "" {
		return "thread " + t.ThreadID
	}
	return "message " + t.MessageID
}

func (t target) modify(ctx context.Context, svc gmailAPI, add, remove []string) error {
	change := &labelChange{AddLabelIDs: add, RemoveLabelIDs: remove}
	var err error
	if t.ThreadID != "" {
		err = svc.modifyThread(ctx, t.ThreadID, change)
	} else {
		err = svc.modifyMessage(ctx, t.MessageID, change)
	}
	if err != nil {
		return apiError(err, "change the labels of "+t.what())
	}
	return nil
}

// labelIDs maps label names (or ids) to ids, naming the labels there are
// when one is unknown.
func labelIDs(labels []label, names []string) ([]string, error) {
	var ids []string
	for _, name := range names {
		i := slices.IndexFunc(labels, func(l label) bool {
			return strings.EqualFold(l.Name, strings.TrimSpace(name)) || l.ID == name
		})
		if i < 0 {
			var known []string
			for _, l := range labels {
				if l.Type == "user" || slices.Contains([]string{"INBOX", "UNREAD", "STARRED", "IMPORTANT", "SPAM", "TRASH"}, l.ID) {
					known = append(known, l.Name)
				}
			}
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "there is no label %q; the labels are: %s", name, strings.Join(known, ", "))
		}
		ids = append(ids, labels[i].ID)
	}
	return ids, nil
}

// size says n bytes the way a person reads it.
func size(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d bytes", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.0f KB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1000/1000)
}

// decodeData reads a part body's data: base64url, with or without the
// padding Gmail sometimes leaves off.
func decodeData(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}
