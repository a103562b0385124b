package cliagent

import (
	"fmt"
	"strconv"

	"github.com/jarvisbot/jarvisbot/agents"
)

// tokenVar is the variable the session server's token reaches Codex in:
// set in the child's environment only, named in its config by
// bearer_token_env_var, never on argv.
const tokenVar = "JB_SESSION_MCP_TOKEN"

// codexOff are Codex's own tools and outside look-ups, all off: the CLI
// has no way to ask jarvisbot's approvals in exec mode, so the session
// server's tools are all it gets.
var codexOff = []string{"shell_tool", "unified_exec", "view_image", "image_generation",
	"browser_use", "browser_use_external", "in_app_browser", "computer_use", "apps", "plugins",
	"multi_agent", "goals"}

// codexInvocation is `codex exec --json` for one turn, or `codex exec
// resume SESSION` when the chat has a session: sessions are kept (no
// --ephemeral) so the next turn can resume. The sandbox is read-only and
// approvals never asked, with the shell tool off; the MCP tools run
// without Codex's own prompt (default_tools_approval_mode), since the
// runtime decides each call.
func codexInvocation(t agents.DelegateTurn, url, token string) (invocation, error) {
	args := []string{"exec", "--json", "--skip-git-repo-check", "--sandbox", "read-only",
		"-c", "analytics.enabled=false",
		"-c", `approval_policy="never"`,
		"-c", `web_search="disabled"`,
		"-c", "mcp_servers." + serverName + ".url=" + strconv.Quote(url),
		"-c", "mcp_servers." + serverName + ".bearer_token_env_var=" + strconv.Quote(tokenVar),
		"-c", "mcp_servers." + serverName + `.default_tools_approval_mode="approve"`,
	}
	for _, f := range codexOff {
		args = append(args, "--disable", f)
	}
	if t.Session != "" {
		args = append(args, "resume", t.Session)
	}
	// Codex takes no system prompt in exec mode: it leads the prompt, every
	// turn, since the turn's skills and tools change from message to
	// message.
	text, err := prompt(t, t.System)
	if err != nil {
		return invocation{}, fmt.Errorf("codex: %w", err)
	}
	args = append(args, "--", text)
	return invocation{args: args, env: map[string]string{tokenVar: token}}, nil
}
