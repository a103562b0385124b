package agents

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// focusByWord focuses an agent on mcp:github when its description says
// "github".
type focusByWord struct{}

func (focusByWord) Focus(_, description string) []string {
	if strings.Contains(strings.ToLower(description), "github") {
		return []string{"mcp:github"}
	}
	return nil
}

// TestManageAgentsA1C6: an agent is added only with a description, gets
// its focus from it, and an edit changes only what it sets ("-" clears a
// list); the default agent cannot be removed.
func TestManageAgentsA1C6(t *testing.T) {
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "jarvisbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := Add(ctx, db, focusByWord{}, "dev", Spec{Description: "  "}); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "--describe") {
		t.Errorf("add without a description: %v", err)
	}
	ag, err := Add(ctx, db, focusByWord{}, "dev", Spec{Description: "Reviews GitHub pull requests", Allow: " mcp:github/*, builtin:wiki ,", Block: "mcp:github/delete_repo"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ag.Focus, []string{"mcp:github"}) || !slices.Equal(ag.Allow, []string{"mcp:github/*", "builtin:wiki"}) {
		t.Errorf("added %+v", ag)
	}
	ag, err = Edit(ctx, db, focusByWord{}, "dev", Spec{Description: "Writes notes", Allow: "-"})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := db.Agent(ctx, "dev")
	if err != nil {
		t.Fatal(err)
	}
	if len(stored.Focus) != 0 || len(stored.Allow) != 0 || !slices.Equal(stored.Block, []string{"mcp:github/delete_repo"}) || stored.Description != ag.Description {
		t.Errorf("after the edit: %+v", stored)
	}
	if err := Remove(ctx, db, store.DefaultAgent); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("removing the default agent: %v", err)
	}
	if err := Remove(ctx, db, "dev"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Agent(ctx, "dev"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("dev after remove: %v", err)
	}
}

// TestSeedFromConfigA1C6: the default agent and the config's agents are
// created once, the default with its stock description; an agent the
// owner edited keeps the edit; the catalog is built only when an agent is
// missing; an invalid name in the config names the config.
func TestSeedFromConfigA1C6(t *testing.T) {
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "jarvisbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	built := 0
	focus := func() (Focuser, error) { built++; return focusByWord{}, nil }
	configured := map[string]store.Agent{"dev": {Description: "GitHub reviews"}}
	if err := Seed(ctx, db, configured, "cfg.yaml", focus); err != nil {
		t.Fatal(err)
	}
	def, err := db.Agent(ctx, store.DefaultAgent)
	if err != nil || def.Description != DefaultDescription {
		t.Errorf("default agent %+v, %v", def, err)
	}
	if dev, err := db.Agent(ctx, "dev"); err != nil || !slices.Equal(dev.Focus, []string{"mcp:github"}) {
		t.Errorf("dev %+v, %v", dev, err)
	}
	if _, err := Edit(ctx, db, focusByWord{}, "dev", Spec{Description: "Notes"}); err != nil {
		t.Fatal(err)
	}
	if err := Seed(ctx, db, configured, "cfg.yaml", focus); err != nil {
		t.Fatal(err)
	}
	if dev, _ := db.Agent(ctx, "dev"); dev.Description != "Notes" || built != 1 {
		t.Errorf("after a second seed: %q, catalog built %d times; want the edit kept and one build", dev.Description, built)
	}
	err = Seed(ctx, db, map[string]store.Agent{"Bad Name": {}}, "cfg.yaml", focus)
	if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), `seeding agent "Bad Name" from cfg.yaml`) {
		t.Errorf("bad name: %v", err)
	}
}

// TestAgentProviderA3M5: an agent may be given its own provider (a coding
// CLI on the owner's subscription), kept in the store; an unknown one is
// refused; "-" gives it back the installation's.
func TestAgentProviderA3M5(t *testing.T) {
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "jarvisbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := Add(ctx, db, focusByWord{}, "coder", Spec{Description: "writes code", Provider: "cursor-agent"}); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "claude-code") {
		t.Errorf("an unknown provider: %v", err)
	}
	if _, err := Add(ctx, db, focusByWord{}, "coder", Spec{Description: "writes code", Provider: "claude-code"}); err != nil {
		t.Fatal(err)
	}
	if ag, _ := db.Agent(ctx, "coder"); ag.Provider != "claude-code" {
		t.Errorf("stored provider %q", ag.Provider)
	}
	if ag, err := Edit(ctx, db, focusByWord{}, "coder", Spec{Description: "reviews code"}); err != nil || ag.Provider != "claude-code" {
		t.Errorf("an edit that names no provider changed it: %q, %v", ag.Provider, err)
	}
	if ag, err := Edit(ctx, db, focusByWord{}, "coder", Spec{Provider: "-"}); err != nil || ag.Provider != "" {
		t.Errorf("--provider - left %q, %v", ag.Provider, err)
	}
}

// TestFocusKeepsWhatTheAllowListPermitsC6: a focus entry the agent's
// allow-list excludes is dropped: a tool it may not use is no focus.
func TestFocusKeepsWhatTheAllowListPermitsC6(t *testing.T) {
	for _, tc := range []struct {
		focus, allow, want []string
	}{
		{[]string{"plugin:huggingface"}, []string{"mcp:arxiv/*"}, nil},
		{[]string{"mcp:arxiv/*", "plugin:huggingface"}, []string{"mcp:arxiv/*"}, []string{"mcp:arxiv/*"}},
		{[]string{"plugin:gmail", "builtin:wiki"}, nil, []string{"plugin:gmail", "builtin:wiki"}},
		{[]string{"plugin:github"}, []string{"plugin:*"}, []string{"plugin:github"}},
		{[]string{"plugin:github", "mcp:github/*"}, []string{"mcp:github"}, []string{"plugin:github", "mcp:github/*"}},
	} {
		if got := permitted(tc.focus, tc.allow); !slices.Equal(got, tc.want) {
			t.Errorf("permitted(%v, %v) = %v, want %v", tc.focus, tc.allow, got, tc.want)
		}
	}
}
