package app

import (
	"context"
)

// Preference is a plugin or MCP server marked preferred, or no longer:
// when it and another of its kind match a request equally, the preferred
// one wins (C5); without a mark the one used last does.
type Preference struct {
	Kind    string // "plugin" or "mcp"
	Name    string
	Cleared bool
}

// PreferPlugin marks an installed or shipped plugin preferred, or clears
// the mark.
func (in *Installation) PreferPlugin(ctx context.Context, name string, clear bool) (Preference, error) {
	facts, err := in.Plugin(ctx, name)
	if err != nil {
		return Preference{}, err
	}
	return in.prefer(ctx, "plugin", facts.Name, clear)
}

// PreferServer marks a stored MCP server preferred, or clears the mark.
func (in *Installation) PreferServer(ctx context.Context, name string, clear bool) (Preference, error) {
	if _, err := in.DB.MCPServer(ctx, name); err != nil {
		return Preference{}, err
	}
	return in.prefer(ctx, "mcp", name, clear)
}

func (in *Installation) prefer(ctx context.Context, kind, name string, clear bool) (Preference, error) {
	p := Preference{Kind: kind, Name: name, Cleared: clear}
	if clear {
		return p, in.DB.Unprefer(ctx, kind, name)
	}
	return p, in.DB.Prefer(ctx, kind, name)
}
