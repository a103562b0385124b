package app

import (
	"context"
	"time"

	"github.com/jarvisbot/jarvisbot/catalog/clitool"
	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/store"
)

// The owner's connected command-line programs (P5): each joins the
// catalog as cli:NAME at tier ask and runs with an argv, never a shell.

// NewCLITool is a program as the owner connects it.
type NewCLITool struct {
	Name        string
	Path        string   // its path, when it is not Name on PATH
	Env         []string // K=V it gets (V may be ${SECRET})
	Timeout     time.Duration
	Description string // what it is for, in a sentence, for the model
}

// AddCLITool connects a program: its environment may refer to secrets,
// never hold them. It returns the tool as stored.
func (in *Installation) AddCLITool(ctx context.Context, n NewCLITool) (store.CLITool, error) {
	t, err := clitool.Resolve(n.Name, n.Path)
	if err != nil {
		return store.CLITool{}, err
	}
	vals, err := KeyValues(n.Env, "=", "--env")
	if err != nil {
		return store.CLITool{}, err
	}
	if err := mcphost.RefuseLiterals(store.MCPServer{Name: "cli:" + t.Name, Env: vals}); err != nil {
		return store.CLITool{}, err
	}
	stored := store.CLITool{Name: t.Name, Path: t.Path, Env: vals, Timeout: n.Timeout, Description: n.Description}
	if err := in.DB.AddCLITool(ctx, stored); err != nil {
		return store.CLITool{}, err
	}
	return stored, nil
}

// CLITools are the connected programs.
func (in *Installation) CLITools(ctx context.Context) ([]store.CLITool, error) {
	return in.DB.CLITools(ctx)
}

// RemoveCLITool disconnects a program.
func (in *Installation) RemoveCLITool(ctx context.Context, name string) error {
	return in.DB.RemoveCLITool(ctx, name)
}

// RunCLITool runs a connected program once with argv, as the owner, and
// returns what it printed.
func (in *Installation) RunCLITool(ctx context.Context, name string, argv []string) (string, error) {
	t, err := clitool.Find(ctx, in.DB, name)
	if err != nil {
		return "", err
	}
	return t.Run(ctx, argv, in.Env.Lookup(ctx, in.Config))
}
