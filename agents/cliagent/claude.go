package cliagent

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
)

// claudeInvocation is `claude -p` for one turn. The session server's
// address and token go in an MCP config file in the turn's private
// folder (Claude Code does not reliably expand ${VAR} in the headers of
// an HTTP server, and argv is readable by every user of the machine);
// the system prompt goes in a file beside it for the same reason.
//
// Not --bare: it reads no OAuth sign-in, only ANTHROPIC_API_KEY, and the
// owner's subscription is the point. --setting-sources "" skips what
// --bare would have for jarvisbot's purpose: the owner's settings (hooks,
// a permissions.allow that would let the CLI's own tools run unasked) and
// CLAUDE.md memory.
//
// Own tools off: --tools "" leaves only MCP tools, --allowedTools mcp__jb
// lets the session server's tools run (the runtime decides each call).
// Own tools on: every tool the CLI has, each use not allowed by the list
// asked through mcp__jb__approve, which asks the owner.
//
// snapshot says the CLI knows --system-prompt-snapshot; an older one is
// not given it (it would refuse the turn as an unknown option).
func claudeInvocation(t agents.DelegateTurn, url, token, dir string, ownTools, snapshot bool) (invocation, error) {
	cfg := map[string]any{"mcpServers": map[string]any{serverName: map[string]any{
		"type":    "http",
		"url":     url,
		"headers": map[string]string{"Authorization": "Bearer " + token},
	}}}
	b, err := json.Marshal(cfg)
	if err != nil {
		return invocation{}, err
	}
	mcpFile := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(mcpFile, b, 0o600); err != nil {
		return invocation{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "claude-code: cannot write the turn's MCP config: %w", err)
	}
	args := []string{"-p", "--output-format", "stream-json", "--verbose",
		"--mcp-config", mcpFile, "--strict-mcp-config", "--setting-sources", "",
		"--allowedTools", "mcp__" + serverName}
	if ownTools {
		args = append(args, "--permission-prompt-tool", fmt.Sprintf("mcp__%s__%s", serverName, ApproveTool))
	} else {
		args = append(args, "--tools", "")
	}
	if t.System != "" {
		sysFile := filepath.Join(dir, "system.md")
		if err := os.WriteFile(sysFile, []byte(t.System), 0o600); err != nil {
			return invocation{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "claude-code: cannot write the turn's system prompt: %w", err)
		}
		// Given every turn, and used fresh: the turn's skills and notes
		// change from message to message, and by default a resumed session
		// sends the prompt recorded on its first turn.
		args = append(args, "--system-prompt-file", sysFile)
		if snapshot {
			args = append(args, snapshotFlag, "off")
		}
	}
	if t.Session != "" {
		args = append(args, "--resume", t.Session)
	}
	// "--" ends the options (several take lists), so a message that
	// starts with "-" is still the prompt.
	text, err := prompt(t, "")
	if err != nil {
		return invocation{}, fmt.Errorf("claude-code: %w", err)
	}
	args = append(args, "--", text)
	return invocation{args: args}, nil
}
