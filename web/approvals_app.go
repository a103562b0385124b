package web

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/store"
)

// dashboardDecider is who decides a request from the dashboard: the owner
// (only the owner gets a sign-in link), at a console of their own. The
// desk counts every "console" user as an owner, so the engine takes the
// decision as it takes the chat's buttons; the name tells the two apart
// in the store and on the activity board.
const dashboardDecider = "console:dashboard"

// ApprovalsTab is the Approvals tab over the running service's
// installation: app's approval use cases, decided by the same engine as
// the chat's buttons, once.
func ApprovalsTab(in *app.Installation) Approvals { return approvalsTab{in} }

type approvalsTab struct{ in *app.Installation }

func approvalFrom(a store.Approval) Approval {
	return Approval{ID: a.ID, Agent: a.Agent, Tool: a.Tool, Summary: a.Summary, Chat: a.Chat, Asked: a.CreatedAt, Expires: a.ExpiresAt}
}

func decidedFrom(a store.Approval) Decided {
	return Decided{Approval: approvalFrom(a), State: string(a.State), Always: a.Always, By: a.DecidedBy, At: a.DecidedAt}
}

// Request is one request with its arguments whole, indented, their
// control and invisible characters shown (X2): the page the chat's
// message links to.
func (t approvalsTab) Request(ctx context.Context, id string) (Decided, error) {
	a, err := t.in.Approval(ctx, id)
	if err != nil {
		return Decided{}, err
	}
	d := decidedFrom(a)
	var b bytes.Buffer
	if json.Indent(&b, a.Args, "", "  ") != nil {
		b.Reset()
		b.Write(a.Args)
	}
	d.Args = visible.Text(b.String())
	return d, nil
}

func (t approvalsTab) Pending(ctx context.Context) ([]Approval, error) {
	list, err := t.in.PendingApprovals(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Approval, 0, len(list))
	for _, a := range list {
		out = append(out, approvalFrom(a))
	}
	return out, nil
}

// Decide decides as dashboardDecider; a request decided first (in a chat,
// by an app, by its expiry) comes back as it was decided.
func (t approvalsTab) Decide(ctx context.Context, id string, d Decision) (Decided, error) {
	r, err := t.in.DecideApproval(ctx, id, dashboardDecider, d != Deny, d == Always)
	got := decidedFrom(r.Approval)
	got.Already = r.Already
	return got, err
}

func (t approvalsTab) Grants(ctx context.Context) ([]string, error) { return t.in.AlwaysApproved(ctx) }

func (t approvalsTab) Revoke(ctx context.Context, tool string) (string, error) {
	r, err := t.in.Revoke(ctx, tool)
	if err != nil {
		return "", err
	}
	return r.Note(), nil
}
