package main

import (
	"context"
	"fmt"

	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/internal/config"
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
	for name, p := range configSecrets(m.cfg) {
		use[name] = p
	}
	return use, nil
}

// configSecrets are the keyring names the config refers to, with where.
func configSecrets(cfg config.Config) map[string]string {
	out := map[string]string{}
	if n := cfg.Provider.APIKeySecret; n != "" {
		out[n] = "the config (provider.api_key_secret)"
	}
	for name, ag := range cfg.Agents {
		if n := ag.Provider.APIKeySecret; n != "" {
			out[n] = fmt.Sprintf("the config (agents.%s.provider.api_key_secret)", name)
		}
	}
	return out
}
