package google

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/native"
)

// The Gmail tools' descriptions of their calls, for the approval request
// the owner decides on (CH2): who the mail goes to, its subject and its
// text, as it would go out.

func (g *gmailTools) describeDraft(_ context.Context, raw json.RawMessage) (catalog.Description, bool) {
	return describeCompose("Save a draft mail (not sent)", raw)
}

func (g *gmailTools) describeSend(_ context.Context, raw json.RawMessage) (catalog.Description, bool) {
	return describeCompose("Send a mail from your Gmail", raw)
}

func describeCompose(what string, raw json.RawMessage) (catalog.Description, bool) {
	var a composeArgs
	if native.Decode(raw, &a) != nil {
		return catalog.Description{}, false
	}
	d := catalog.Description{What: what, Lines: []catalog.Line{{Label: "To", Value: a.To}}}
	if strings.TrimSpace(a.Cc) != "" {
		d.Lines = append(d.Lines, catalog.Line{Label: "Cc", Value: a.Cc})
	}
	d.Lines = append(d.Lines, catalog.Line{Label: "Subject", Value: a.Subject}, catalog.Line{Label: "Text", Value: a.Body})
	return d, true
}

// describeReply names whom the reply goes to and its subject, read from
// the mail it answers as reply would, when that mail can be read.
func (g *gmailTools) describeReply(ctx context.Context, raw json.RawMessage) (catalog.Description, bool) {
	var a struct {
		MessageID string `json:"message_id"`
		Body      string `json:"body"`
		ReplyAll  bool   `json:"reply_all"`
	}
	if native.Decode(raw, &a) != nil {
		return catalog.Description{}, false
	}
	d := catalog.Description{What: "Send a reply from your Gmail"}
	if a.ReplyAll {
		d.What = "Send a reply to all from your Gmail"
	}
	if out, ok := g.replyHeaders(ctx, a.MessageID, a.ReplyAll); ok {
		d.Lines = append(d.Lines, catalog.Line{Label: "To", Value: join(out.to)})
		if len(out.cc) > 0 {
			d.Lines = append(d.Lines, catalog.Line{Label: "Cc", Value: join(out.cc)})
		}
		d.Lines = append(d.Lines, catalog.Line{Label: "Subject", Value: out.subject})
	} else {
		d.Lines = append(d.Lines, catalog.Line{Label: "Answering", Value: "message " + a.MessageID})
	}
	d.Lines = append(d.Lines, catalog.Line{Label: "Text", Value: a.Body})
	return d, true
}

// replyHeaders is who a reply to message id goes to, and its subject;
// false when Gmail cannot be asked or does not answer.
func (g *gmailTools) replyHeaders(ctx context.Context, id string, all bool) (outgoing, bool) {
	if g.o.HTTPClient == nil || id == "" {
		return outgoing{}, false
	}
	svc := g.o.gmailAPI()
	orig, err := svc.getMessage(ctx, id, "metadata", "From", "To", "Cc", "Reply-To", "Subject")
	if err != nil {
		return outgoing{}, false
	}
	self, err := owner(ctx, svc)
	if err != nil {
		return outgoing{}, false
	}
	out, err := replyTo(headers(orig.Payload), self, all)
	return out, err == nil
}

func (g *gmailTools) describeLabel(_ context.Context, raw json.RawMessage) (catalog.Description, bool) {
	var a struct {
		target
		Add    []string `json:"add"`
		Remove []string `json:"remove"`
	}
	if native.Decode(raw, &a) != nil {
		return catalog.Description{}, false
	}
	d := catalog.Description{What: "Change the labels of " + a.target.what()}
	if len(a.Add) > 0 {
		d.Lines = append(d.Lines, catalog.Line{Label: "Add", Value: strings.Join(a.Add, ", ")})
	}
	if len(a.Remove) > 0 {
		d.Lines = append(d.Lines, catalog.Line{Label: "Remove", Value: strings.Join(a.Remove, ", ")})
	}
	return d, true
}

func (g *gmailTools) describeArchive(_ context.Context, raw json.RawMessage) (catalog.Description, bool) {
	var a target
	if native.Decode(raw, &a) != nil {
		return catalog.Description{}, false
	}
	return catalog.Description{What: "Archive " + a.what() + " (out of the inbox, kept in All Mail)"}, true
}
