package clitool

import (
	"context"
	"encoding/json"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// The owner's connected programs as the store keeps them (P5).

// ToolStore is what managing CLI tools needs of the store.
type ToolStore interface {
	AddCLITool(ctx context.Context, t store.CLITool) error
	CLITools(ctx context.Context) ([]store.CLITool, error)
	RemoveCLITool(ctx context.Context, name string) error
}

// FromStored is the tool a stored row describes.
func FromStored(t store.CLITool) Tool {
	return Tool{Name: t.Name, Path: t.Path, Env: t.Env, Timeout: t.Timeout, Description: t.Description}
}

// Stored are the stored tools by name, as Runner takes them.
func Stored(ctx context.Context, db ToolStore) (map[string]Tool, error) {
	list, err := db.CLITools(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]Tool, len(list))
	for _, st := range list {
		out[st.Name] = FromStored(st)
	}
	return out, nil
}

// Find returns the stored tool named name, or ENOTFOUND.
func Find(ctx context.Context, db ToolStore, name string) (Tool, error) {
	list, err := db.CLITools(ctx)
	if err != nil {
		return Tool{}, err
	}
	for _, st := range list {
		if st.Name == name {
			return FromStored(st), nil
		}
	}
	return Tool{}, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no CLI tool named %s (see jarvisbot cli list)", name)
}

// Run runs the tool once with argv, as the owner, and returns its output.
func (t Tool) Run(ctx context.Context, argv []string, lookup Lookup) (string, error) {
	raw, err := json.Marshal(map[string][]string{"args": append([]string{}, argv...)})
	if err != nil {
		return "", err
	}
	res, err := t.Call(ctx, raw, lookup, 0)
	if err != nil {
		return "", err
	}
	return res.Text, nil
}
