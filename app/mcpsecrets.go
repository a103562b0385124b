package app

import (
	"context"
	"maps"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/store/secrets"
)

// RemovedServer is what removing a server did with the secrets jarvisbot
// moved to the keyring for it.
type RemovedServer struct {
	Name string
	// Kept are the secrets something else refers to, in the order the
	// server named them.
	Kept []KeptSecret
	// Unsure, when set, says why it cannot be told whether anything else
	// refers to the server's secrets Secrets; they are all kept.
	Unsure  error
	Secrets []string
	// Deleted are the secrets deleted from the keyring.
	Deleted []string
}

// KeptSecret is a secret kept in the keyring because By refers to it.
type KeptSecret struct {
	Name, By string
}

// RemoveServer forgets a server and deletes the secrets jarvisbot moved
// to the keyring for it, except those another server, a CLI tool or the
// config still refers to. When a secret cannot be deleted, the server is
// removed nonetheless: the result says what was done, beside the error.
func (in *Installation) RemoveServer(ctx context.Context, name string) (RemovedServer, error) {
	s, err := in.FindServer(ctx, name)
	if err != nil {
		return RemovedServer{}, err
	}
	out := RemovedServer{Name: s.Name}
	// What cannot be read must not keep the owner from removing the
	// server; its secrets then stay, since nothing says they are unused.
	use, useErr := in.secretsInUse(ctx, s.Name)
	if err := in.DB.RemoveMCPServer(ctx, s.Name); err != nil {
		return RemovedServer{}, err
	}
	in.follow(ctx, s.Name)
	if useErr != nil && len(s.Secrets) > 0 {
		out.Unsure, out.Secrets = useErr, s.Secrets
		return out, nil
	}
	var drop []string
	for _, n := range s.Secrets {
		if by, ok := use[n]; ok {
			out.Kept = append(out.Kept, KeptSecret{Name: n, By: by})
		} else if secrets.ValidName(n) == nil {
			drop = append(drop, n)
		}
	}
	if len(drop) == 0 {
		return out, nil
	}
	kr, err := in.Env.OpenSecrets(in.Config)
	for _, n := range drop {
		if err == nil {
			if err = kr.Delete(ctx, n); jarvisbot.ErrorCode(err) == jarvisbot.ENOTFOUND {
				err = nil // deleted by hand already
			}
		}
		if err != nil {
			return out, jarvisbot.Errorf(jarvisbot.ErrorCode(err), "%s is removed, but its secret %s is still in the keyring (%w): delete it with jarvisbot secrets delete %s", mcphost.ShownName(s.Name), n, err, n)
		}
		out.Deleted = append(out.Deleted, n)
	}
	return out, nil
}

// secretsInUse says, for each keyring name that something other than the
// server being removed needs, what needs it: another MCP server, a CLI
// tool, or the config.
func (in *Installation) secretsInUse(ctx context.Context, except string) (map[string]string, error) {
	servers, err := in.DB.MCPServers(ctx)
	if err != nil {
		return nil, err
	}
	tools, err := in.DB.CLITools(ctx)
	if err != nil {
		return nil, err
	}
	use := mcphost.SecretsInUse(servers, tools, except)
	maps.Copy(use, in.Config.Secrets())
	return use, nil
}
