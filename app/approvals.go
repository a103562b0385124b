package app

import (
	"context"
	"fmt"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// The approval use cases (C2, CH2): the requests that wait for the owner,
// decided through the running service's engine (the one the chat's
// buttons use, so that each is decided once), and the tools approved
// "always".

// PendingApprovals are the requests that wait for a decision, oldest
// first.
func (in *Installation) PendingApprovals(ctx context.Context) ([]store.Approval, error) {
	return in.DB.PendingApprovals(ctx)
}

// Approval is one request, pending or decided; ENOTFOUND when there is
// none.
func (in *Installation) Approval(ctx context.Context, id string) (store.Approval, error) {
	return in.DB.Approval(ctx, id)
}

// ApprovalDecided is a request after a decision.
type ApprovalDecided struct {
	Approval store.Approval
	// Already is set when the request was decided before (in a chat, by
	// an app, by its expiry): this decision changed nothing, and Approval
	// says how it was decided.
	Already bool
}

// DecideApproval decides the request id as by, once: approve or deny,
// and always (with approve) lets the tool run without asking from now on.
// The decision goes on the activity board under by, so the board says who
// decided. Only the running service decides: its engine is the one that
// carries the request's turn on.
func (in *Installation) DecideApproval(ctx context.Context, id, by string, approve, always bool) (ApprovalDecided, error) {
	if in.Live == nil {
		return ApprovalDecided{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "approval requests are decided by the running service: start jarvisbot serve, then decide in the chat or on the dashboard")
	}
	a, err := in.Live.Approvals.Decide(ctx, id, by, approve, always)
	switch {
	case jarvisbot.ErrorCode(err) == jarvisbot.ECONFLICT && a.ID != "":
		return ApprovalDecided{Approval: a, Already: true}, nil
	case err != nil:
		return ApprovalDecided{Approval: a}, err
	}
	outcome := string(a.State)
	if a.Always {
		outcome = "approved always"
	}
	entry := store.Activity{At: in.Env.Now(), Agent: by, Tool: a.Tool, Tier: "ask", Args: "agent " + a.Agent + ": " + a.Summary, Outcome: outcome}
	if err := in.DB.RecordActivity(context.WithoutCancel(ctx), entry); err != nil {
		// The decision stands; only the board misses it.
		in.Live.log.Error("a decision is missing from the activity board", "approval", a.ID, "by", by, "tool", a.Tool, "outcome", outcome, "err", err)
	}
	return ApprovalDecided{Approval: a}, nil
}

// AlwaysApproved are the tools approved "always", which run without
// asking.
func (in *Installation) AlwaysApproved(ctx context.Context) ([]string, error) {
	return in.DB.Grants(ctx)
}

// Revoked is a tool that asks for approval again.
type Revoked struct{ Tool string }

// Revoke withdraws "always" for tool: it asks for approval again.
func (in *Installation) Revoke(ctx context.Context, tool string) (Revoked, error) {
	if err := in.DB.Revoke(ctx, tool); err != nil {
		return Revoked{}, err
	}
	return Revoked{Tool: tool}, nil
}

func (r Revoked) Note() string { return fmt.Sprintf("%s asks for your approval again.", r.Tool) }
