package cliagent

import (
	"slices"
	"sort"
	"strings"
)

// passPrefixes are the CLIs' own settings, passed through from
// jarvisbot's environment so an owner (or a test) can point a CLI at
// another endpoint or account: Claude Code reads ANTHROPIC_*,
// CLAUDE_CODE_* and DISABLE_*, Codex CODEX_HOME and OPENAI_*.
var passPrefixes = []string{"ANTHROPIC_", "CLAUDE_CODE_", "DISABLE_", "OPENAI_"}

// passNames are passed through by exact name (proxies in either case, as
// the tools around them read both).
var passNames = []string{"PATH", "HOME", "CODEX_HOME", "TMPDIR", "LANG", "LC_ALL",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy"}

// claudeQuiet keeps Claude Code from reaching anything but the model and
// the session server: no telemetry, error reports or update checks.
var claudeQuiet = map[string]string{
	"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
	"DISABLE_TELEMETRY":                        "1",
	"DISABLE_AUTOUPDATER":                      "1",
}

// childEnv is the CLI's environment: like an MCP stdio child's (PATH and
// HOME), plus the CLI's own settings from jarvisbot's environment, plus
// what the invocation adds. Nothing else passes: not the bot tokens, not
// JARVIS_* settings, not other programs' keys. The names a Getenv can
// answer are not listable, so the candidates are the process's own
// variables; Getenv gives their values (a test's or the service's view).
func (c *CLI) childEnv(add map[string]string) []string {
	env := map[string]string{}
	for _, name := range c.candidates() {
		if !passes(name) {
			continue
		}
		if v := c.opt.Getenv(name); v != "" {
			env[name] = v
		}
	}
	if c.opt.Kind == ClaudeCode {
		for k, v := range claudeQuiet {
			env[k] = v
		}
	}
	for k, v := range add {
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// passes says whether a variable of jarvisbot's environment reaches the
// CLI.
func passes(name string) bool {
	if strings.HasPrefix(name, "JARVIS_") {
		return false
	}
	for _, n := range passNames {
		if name == n {
			return true
		}
	}
	for _, p := range passPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// candidates are the names childEnv considers: jarvisbot's variables and
// the exact names passed through.
func (c *CLI) candidates() []string {
	names := append([]string(nil), passNames...)
	for _, kv := range c.opt.Environ() {
		if name, _, ok := strings.Cut(kv, "="); ok && name != "" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return slices.Compact(names)
}
