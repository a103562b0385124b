// Package names holds the rule for the names the owner types in chats and
// commands: agents (A1) and the apps that use the MCP surface (M4). They
// stay short and plain so that they fit in commands and buttons. The
// configuration, the store and every command check a name with the same
// rule, so a name one accepts the others take. It also holds the shapes of
// the names of tool sources (Source) and of chat platforms' commands
// (Command).
package names

import (
	"strings"

	"github.com/jarvisbot/jarvisbot"
)

// MaxLen bounds names so they fit in chat commands and buttons.
const MaxLen = 64

// ValidAgent reports, as an EINVALID error, why name cannot name an agent.
// Names are typed in chats and commands, so they stay short and plain:
// 1 to 64 lowercase letters, digits, '-' or '_', starting with a letter or digit.
func ValidAgent(name string) error { return validName("agent", name) }

// validName is the rule for names typed in chats and commands; kind ("agent",
// "app") names the thing in the error.
func validName(kind, name string) error {
	if name == "" {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s name is empty: use 1 to %d lowercase letters, digits, '-' or '_'", kind, MaxLen)
	}
	if len(name) > MaxLen {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s name %.20q... is %d characters long: use at most %d", kind, name, len(name), MaxLen)
	}
	for i, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
		case (r == '-' || r == '_') && i > 0:
		case r == '-' || r == '_':
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s name %q starts with %q: start it with a lowercase letter or digit", kind, name, r)
		default:
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s name %q contains %q: use only lowercase letters, digits, '-' and '_'", kind, name, r)
		}
	}
	return nil
}

// ValidApp reports, as an EINVALID error, why name cannot name an app:
// the same rule as agent names, since both are typed in commands.
func ValidApp(name string) error { return validName("app", name) }

// Source reports whether name can name a source of tools, an MCP server
// or a CLI tool: 1 to 64 lowercase letters, digits, '.', '_' or '-',
// starting with a letter or digit. Such a name becomes part of capability
// ids (mcp:NAME/tool) and chat commands. A loop rather than a regular
// expression: {0,63} compiled to a 50 KB program that every start paid for.
func Source(name string) bool {
	if name == "" || len(name) > MaxLen {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// MaxCommand bounds a chat command's name: Telegram and Discord both take
// at most 32 characters.
const MaxCommand = 32

// Command reports whether name can name a command on a chat platform: 1
// to MaxCommand lowercase letters, digits or bytes of punct, which the
// platform decides ("_" for Telegram, "-_" for Discord). A loop rather
// than a regular expression: {1,32} compiled to a 27 KB program that
// every start paid for.
func Command(name, punct string) bool {
	if name == "" || len(name) > MaxCommand {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte(punct, c) >= 0) {
			return false
		}
	}
	return true
}
