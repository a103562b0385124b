package app

import (
	"context"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestAgentsAddEditRemoveA1C6: an agent added with a description gets its
// focus from the catalog (C6) and the note shows it; an edit that sets a
// list keeps the focus, and one with a description chooses it anew; the
// default agent cannot be removed, another can.
func TestAgentsAddEditRemoveA1C6(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	r, err := in.AddAgent(ctx, "scribe", agents.Spec{Description: "looks after the notes in my wiki"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Note(), "Added agent:\nscribe: looks after the notes in my wiki\n  focus: builtin:wiki") {
		t.Errorf("add: note %q", r.Note())
	}
	if _, err := in.AddAgent(ctx, "empty", agents.Spec{}); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("an agent with no description: %v", err)
	}
	r, err = in.EditAgent(ctx, "scribe", agents.Spec{Block: "cli:*"})
	if err != nil || strings.Join(r.Agent.Block, ",") != "cli:*" || strings.Join(r.Agent.Focus, ",") != "builtin:wiki" || strings.HasPrefix(r.Note(), "Added") {
		t.Fatalf("edit: %+v %v", r, err)
	}
	ag, err := in.ShowAgent(ctx, "scribe")
	if err != nil || !strings.Contains(DescribeAgent(ag), "  block: cli:*\n") {
		t.Errorf("show after the edit: %q %v", DescribeAgent(ag), err)
	}
	list, err := in.ListAgents(ctx)
	if err != nil || len(list) != 2 {
		t.Errorf("list: %+v %v", list, err)
	}
	if _, err := in.RemoveAgent(ctx, store.DefaultAgent); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("removing the default agent: %v", err)
	}
	if rm, err := in.RemoveAgent(ctx, "scribe"); err != nil || rm.Note() != "Removed agent scribe." {
		t.Errorf("remove: %+v %v", rm, err)
	}
	if _, err := in.ShowAgent(ctx, "scribe"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("show of a removed agent: %v", err)
	}
}

// TestAgentModelSaysWhyNoneA3: with no model configured, the agent's
// model is none, with the reason.
func TestAgentModelSaysWhyNoneA3(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	ag, err := in.ShowAgent(ctx, store.DefaultAgent)
	if err != nil {
		t.Fatal(err)
	}
	if m := in.ModelOf(ctx, ag); m.Err == nil || m.CLI != "" {
		t.Errorf("the model with none configured: %+v", m)
	}
	ag.Provider = "codex"
	if m := in.ModelOf(ctx, ag); m.CLI != "codex" {
		t.Errorf("an agent on codex: %+v", m)
	}
}
