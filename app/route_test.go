package app

import (
	"context"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestPlanRouteC7: without a running service the default agent's turn is
// explained over the built catalog; an unknown agent is ENOTFOUND, and
// the error says how to add it.
func TestPlanRouteC7(t *testing.T) {
	ctx := context.Background()
	env := testEnv(t, nil)
	p, err := env.PlanRoute(ctx, RouteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ex := p.Explain("what is on my calendar today?")
	if ex.Agent != store.DefaultAgent || ex.Message != "what is on my calendar today?" || len(ex.Tools) == 0 {
		t.Errorf("explanation: agent %q, message %q, %d tools", ex.Agent, ex.Message, len(ex.Tools))
	}
	if _, err := env.PlanRoute(ctx, RouteOptions{Agent: "nobody"}); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("an unknown agent: %v", err)
	}
}
