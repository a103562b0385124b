package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents/approvals"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
	"github.com/jarvisbot/jarvisbot/web"
)

// dashboardDecider is who decides a request from the dashboard: the owner
// (only the owner gets a sign-in link), at a console of their own. The
// desk counts every "console" user as an owner, so the engine takes the
// decision as it takes the chat's buttons; the name tells the two apart
// in the store and on the activity board.
const dashboardDecider = "console:dashboard"

// webApprovals is the dashboard's Approvals tab over this session: the
// same engine as the chat buttons decides, once.
func (a *cli) webApprovals(cfg config.Config, s *app.Session) web.Approvals {
	return approvalsTab{db: s.DB, engine: s.Approvals, now: a.Now, log: s.Log}
}

type approvalsTab struct {
	db     *sqlstore.DB
	engine *approvals.Engine
	now    func() time.Time
	log    *slog.Logger
}

func webApproval(a store.Approval) web.Approval {
	return web.Approval{ID: a.ID, Agent: a.Agent, Tool: a.Tool, Summary: a.Summary, Chat: a.Chat, Asked: a.CreatedAt, Expires: a.ExpiresAt}
}

// Request is one request with its arguments whole, indented, their
// control and invisible characters shown (X2): the page the chat's
// message links to.
func (t approvalsTab) Request(ctx context.Context, id string) (web.Decided, error) {
	a, err := t.db.Approval(ctx, id)
	if err != nil {
		return web.Decided{}, err
	}
	return requestPageOf(a), nil
}

// requestPageOf is a stored request as its page shows it.
func requestPageOf(a store.Approval) web.Decided {
	d := web.Decided{Approval: webApproval(a), State: string(a.State), Always: a.Always, By: a.DecidedBy, At: a.DecidedAt}
	var b bytes.Buffer
	if json.Indent(&b, a.Args, "", "  ") != nil {
		b.Reset()
		b.Write(a.Args)
	}
	d.Args = visible.Text(b.String())
	return d
}

func (t approvalsTab) Pending(ctx context.Context) ([]web.Approval, error) {
	list, err := t.db.PendingApprovals(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]web.Approval, 0, len(list))
	for _, a := range list {
		out = append(out, webApproval(a))
	}
	return out, nil
}

// Decide decides through the engine; a request decided first (in a chat,
// by an app, by its expiry) comes back as it was decided. A decision made
// here goes on the activity board under dashboardDecider, so the board
// says who decided.
func (t approvalsTab) Decide(ctx context.Context, id string, d web.Decision) (web.Decided, error) {
	a, err := t.engine.Decide(ctx, id, dashboardDecider, d != web.Deny, d == web.Always)
	got := web.Decided{Approval: webApproval(a), State: string(a.State), Always: a.Always, By: a.DecidedBy, At: a.DecidedAt}
	switch {
	case jarvisbot.ErrorCode(err) == jarvisbot.ECONFLICT && a.ID != "":
		got.Already = true
		return got, nil
	case err != nil:
		return got, err
	}
	outcome := string(a.State)
	if a.Always {
		outcome = "approved always"
	}
	entry := store.Activity{At: t.now(), Agent: dashboardDecider, Tool: a.Tool, Tier: "ask", Args: "agent " + a.Agent + ": " + a.Summary, Outcome: outcome}
	if err := t.db.RecordActivity(context.WithoutCancel(ctx), entry); err != nil {
		// The decision stands; only the board misses it.
		t.log.Error("a dashboard decision is missing from the activity board", "approval", a.ID, "tool", a.Tool, "outcome", outcome, "err", err)
	}
	return got, nil
}

func (t approvalsTab) Grants(ctx context.Context) ([]string, error) { return t.db.Grants(ctx) }

func (t approvalsTab) Revoke(ctx context.Context, tool string) (string, error) {
	var b strings.Builder
	err := revokeGrant(ctx, &b, t.engine, tool)
	return strings.TrimSpace(b.String()), err
}
