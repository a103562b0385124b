package store

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/sizelimit"
	"github.com/jarvisbot/jarvisbot/internal/visible"
)

// Every name and text that an app, an import, the CLI or the dashboard can
// set is checked here, where all of them meet (X1, X2): a text has a size
// limit and is kept as written (what shows it escapes its control
// characters with package visible); a name or a one-line label also has
// no control or invisible characters at all. The errors name the field
// and the limit.

// AgentDescriptionLimit bounds an agent's description: it chooses the
// agent's focus and opens its system prompt, so it is a sentence or two.
func AgentDescriptionLimit() sizelimit.Limit {
	return sizelimit.Limit{What: "an agent's description", Max: 1 << 10, Hint: "say in a sentence or two what the agent is for and put longer instructions in a skill"}
}

// ValidNote reports, as an EINVALID error, why text cannot be a note for
// agent (agent_message): it is over MaxNoteLen characters (counted as
// characters, since the model reads it so and the surface's schema says
// so), not UTF-8, or holds a NUL byte.
func ValidNote(agent, text string) error {
	name := "the note for agent " + visible.Line(agent)
	if n := utf8.RuneCountInString(text); n > MaxNoteLen {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s has %d characters; a note holds at most %d: shorten it, or post the work as a job (job_post)", name, n, MaxNoteLen)
	}
	return ValidText(name, text, sizelimit.Limit{What: "a note", Max: 4 * MaxNoteLen})
}

// JobTitleLimit bounds a job's title, one line on the activity board.
func JobTitleLimit() sizelimit.Limit {
	return sizelimit.Limit{What: "a job's title", Max: 200}
}

// JobTextLimit bounds what a job (or an agent_chat message) asks.
func JobTextLimit() sizelimit.Limit {
	return sizelimit.Limit{What: "a job's text", Max: 64 << 10, Hint: "put the material in a file or the wiki and say where it is"}
}

// ValidAgentDescription reports, as an EINVALID error, why description
// cannot describe the agent name.
func ValidAgentDescription(name, description string) error {
	return ValidText("the description of agent "+visible.Line(name), description, AgentDescriptionLimit())
}

// MaxServerNameLen bounds an MCP server's name, part of every capability
// id of its tools (mcp:NAME/tool).
const MaxServerNameLen = 64

// ValidText reports, as an EINVALID error, why text cannot be stored as
// the field name ("the description of agent reviewer"): it is over the
// limit, not UTF-8, or holds a NUL byte (which PostgreSQL cannot keep).
// Other control characters are kept; whatever shows the text escapes them.
func ValidText(name, text string, l sizelimit.Limit) error {
	if err := l.Check(name, int64(len(text))); err != nil {
		return err
	}
	if !utf8.ValidString(text) {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s is not UTF-8 text: write it again as plain text", name)
	}
	if i := strings.IndexByte(text, 0); i >= 0 {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s holds a NUL byte (at byte %d): write it without", name, i)
	}
	return nil
}

// ValidLabel is ValidText for a text shown on one line (a job's title):
// it also refuses line breaks and every control or invisible character.
func ValidLabel(name, text string, l sizelimit.Limit) error {
	if err := ValidText(name, text, l); err != nil {
		return err
	}
	return plain(name, text, "")
}

// ValidServerName reports, as an EINVALID error, why name cannot name an
// MCP server: it is empty, longer than MaxServerNameLen, or holds a space,
// a control or an invisible character. (The MCP host checks the finer
// rule; this is the floor every door stands on.)
func ValidServerName(name string) error {
	const fix = "use 1 to 64 lowercase letters, digits, '.', '_' or '-'"
	switch {
	case name == "":
		return jarvisbot.Errorf(jarvisbot.EINVALID, "MCP server name is empty: %s", fix)
	case len(name) > MaxServerNameLen:
		return jarvisbot.Errorf(jarvisbot.EINVALID, "MCP server name %.20q... is %d bytes long, where it may be at most %d: %s", name, len(name), MaxServerNameLen, fix)
	case !utf8.ValidString(name):
		return jarvisbot.Errorf(jarvisbot.EINVALID, "MCP server name %q is not UTF-8: %s", name, fix)
	}
	return plain("MCP server name "+visible.Line(name), name, fix)
}

// plain refuses a control, invisible or (with fix, for names) space
// character in text, naming the first and where it is.
func plain(name, text, fix string) error {
	for i, r := range text {
		if visible.Count(string(r)) > 0 || unicode.IsSpace(r) && (r != ' ' || fix != "") {
			if fix == "" {
				fix = "write it on one line without it"
			}
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s holds the character %q at byte %d: %s", name, r, i, fix)
		}
	}
	return nil
}
