package app

import (
	"context"
	"log/slog"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents/approvals"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestApprovalDecidedOnceC2: a pending request is listed; the running
// service's engine decides it once, and the decision goes on the board
// under who decided; a second decision is no error but says it was
// decided already. A one-off command cannot decide.
func TestApprovalDecidedOnceC2(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	if _, err := in.DecideApproval(ctx, "any", "console:dashboard", true, false); jarvisbot.ErrorCode(err) != jarvisbot.EUNAVAILABLE {
		t.Fatalf("deciding without the service: %v", err)
	}
	e := approvals.New(approvals.Options{Store: in.DB, Clock: in.Env.Clock, Approvers: []string{"console:dashboard", "telegram:42"}})
	t.Cleanup(e.Close)
	in.Live = &Service{Approvals: e, log: slog.New(slog.DiscardHandler)}
	a, err := e.Ask(ctx, approvals.Request{Tool: "cli:echo", Summary: "Run the program echo", Args: []byte(`{"args":["hi"]}`), Agent: "default", Chat: "telegram:42"})
	if err != nil {
		t.Fatal(err)
	}
	if list, err := in.PendingApprovals(ctx); err != nil || len(list) != 1 || list[0].ID != a.ID {
		t.Fatalf("pending: %+v %v", list, err)
	}
	d, err := in.DecideApproval(ctx, a.ID, "console:dashboard", true, true)
	if err != nil || d.Already || d.Approval.State != store.ApprovalApproved || !d.Approval.Always {
		t.Fatalf("decide: %+v %v", d, err)
	}
	board, err := in.DB.ActivityBoard(ctx, store.ActivityFilter{Agent: "console:dashboard"}, 10)
	if err != nil || len(board) != 1 || board[0].Outcome != "approved always" {
		t.Errorf("the board after the decision: %+v %v", board, err)
	}
	d, err = in.DecideApproval(ctx, a.ID, "telegram:42", false, false)
	if err != nil || !d.Already || d.Approval.DecidedBy != "console:dashboard" {
		t.Errorf("a second decision: %+v %v", d, err)
	}
	if grants, err := in.AlwaysApproved(ctx); err != nil || len(grants) != 1 || grants[0] != "cli:echo" {
		t.Fatalf("grants: %v %v", grants, err)
	}
	r, err := in.Revoke(ctx, "cli:echo")
	if err != nil || r.Note() != "cli:echo asks for your approval again." {
		t.Errorf("revoke: %+v %v", r, err)
	}
	if grants, _ := in.AlwaysApproved(ctx); len(grants) != 0 {
		t.Errorf("grants after the revoke: %v", grants)
	}
}
