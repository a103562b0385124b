package main

import (
	"context"
	"maps"

	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
)

// secretsInUse says, for each keyring name that something other than the
// server being removed needs, what needs it: another MCP server, a CLI
// tool, or the config.
func (m mcpCmd) secretsInUse(ctx context.Context, except string) (map[string]string, error) {
	servers, err := m.db.MCPServers(ctx)
	if err != nil {
		return nil, err
	}
	tools, err := m.db.CLITools(ctx)
	if err != nil {
		return nil, err
	}
	use := mcphost.SecretsInUse(servers, tools, except)
	maps.Copy(use, m.cfg.Secrets())
	return use, nil
}
