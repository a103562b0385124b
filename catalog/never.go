package catalog

import (
	"unicode"
	"unicode/utf8"
)

// neverList names the tools no agent may ever have (C4): they start
// background workers, switch providers, add MCP servers or control the app.
// An agent can do work; it cannot hire more workers or rebuild the house it
// lives in. Entries are canonical (see canonicalName), so one entry covers
// spawn-worker, spawn_worker, spawnWorker and "Spawn Worker".
var neverList = map[string]bool{
	"spawnworker": true, "spawnworkers": true, "startworker": true, "spawnagent": true,
	"startbackgroundworker": true, "spawnbackgroundworker": true, "hireworker": true,
	"switchprovider": true, "setprovider": true, "changeprovider": true, "switchmodel": true,
	"addmcpserver": true, "addmcp": true, "installmcpserver": true, "registermcpserver": true,
	"removemcpserver": true,
	"controlapp":      true, "appcontrol": true, "restartapp": true, "shutdownapp": true,
	"quitapp": true, "updateapp": true, "reloadapp": true,
}

// OnNeverList reports whether a tool name is on the never-list, in any
// spelling.
func OnNeverList(name string) bool {
	if len(name) > 128 {
		return false
	}
	var buf [128]byte
	return neverList[string(canonicalName(buf[:0], name))]
}

// canonicalName keeps only letters and digits, lower-cased: the spelling
// of a name stops mattering ("Spawn Worker" == "spawn_worker"). The "_v2"
// or "-tool" noise that tool authors add is not stripped on purpose: the
// list names exact tools, and a test pins each spelling.
func canonicalName(dst []byte, s string) []byte {
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf && ('a' <= r && r <= 'z' || '0' <= r && r <= '9'):
			dst = append(dst, byte(r))
		case r < utf8.RuneSelf && 'A' <= r && r <= 'Z':
			dst = append(dst, byte(r+'a'-'A'))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			dst = utf8.AppendRune(dst, unicode.ToLower(r))
		}
	}
	return dst
}

// AppControlTools are the app-control tools that jarvisbot registers as
// builtins, so that the never-list has something real to withhold and a
// test can prove it does. They run only from the owner's own commands.
func AppControlTools() []Capability {
	obj := []byte(`{"type":"object"}`)
	return []Capability{
		{ID: "builtin:spawn_worker", Name: "spawn_worker", Kind: KindBuiltin, Source: "builtin", Tier: TierAsk, Connected: true,
			Description: "Start a background worker agent.", InputSchema: obj},
		{ID: "builtin:switch_provider", Name: "switch_provider", Kind: KindBuiltin, Source: "builtin", Tier: TierAsk, Connected: true,
			Description: "Switch the LLM provider of an agent.", InputSchema: obj},
		{ID: "builtin:add_mcp_server", Name: "add_mcp_server", Kind: KindBuiltin, Source: "builtin", Tier: TierAsk, Connected: true,
			Description: "Add an MCP server to the catalog.", InputSchema: obj},
		{ID: "builtin:control_app", Name: "control_app", Kind: KindBuiltin, Source: "builtin", Tier: TierAsk, Connected: true,
			Description: "Restart, update or stop jarvisbot.", InputSchema: obj},
	}
}
