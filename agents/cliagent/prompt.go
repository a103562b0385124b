package cliagent

import (
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/llm"
)

// maxPromptBytes bounds the prompt, which the CLI gets as one argument:
// Linux refuses to start a program with an argument over 128 KiB
// (MAX_ARG_STRLEN), so a longer one would fail the turn with "argument
// list too long". The margin leaves room for the NUL and the CLI's own
// re-quoting.
const maxPromptBytes = 120 << 10

// conversation is the history folded into the prompt of a turn that
// starts a CLI session: the CLI has no other way to hear it. Tool calls
// are shown by name only; their results were already answered in the
// text that followed. When the history is longer than budget bytes the
// oldest lines are left out: the newest are what the turn needs.
func conversation(history []llm.Message, budget int) string {
	var lines []string
	used := 0
	for i := len(history) - 1; i >= 0; i-- {
		m := history[i]
		who := "Owner"
		if m.Role == llm.RoleAssistant {
			who = "You"
		}
		text := strings.TrimSpace(m.Text)
		if text == "" && len(m.ToolCalls) > 0 {
			names := make([]string, len(m.ToolCalls))
			for i, c := range m.ToolCalls {
				names[i] = c.Name
			}
			text = "(used " + strings.Join(names, ", ") + ")"
		}
		if text == "" {
			continue
		}
		line := who + ": " + text + "\n"
		if used+len(line) > budget {
			break
		}
		used += len(line)
		lines = append(lines, line)
	}
	var b strings.Builder
	for i := len(lines) - 1; i >= 0; i-- {
		b.WriteString(lines[i])
	}
	return b.String()
}

// prompt is what the CLI is given for the turn: the owner's message, and
// when no session is resumed the conversation before it, as much of it as
// fits under maxPromptBytes; system, when set, goes first (Codex has no
// other place for it). A message that does not fit by itself is refused
// with what to do, before any CLI starts.
func prompt(t agents.DelegateTurn, system string) (string, error) {
	var head string
	if system != "" {
		head = "<instructions>\n" + strings.TrimSpace(system) + "\n</instructions>\n\n"
	}
	const (
		opening = "<conversation_so_far>\n"
		closing = "</conversation_so_far>\n\nThe owner's new message:\n"
	)
	fixed := len(head) + len(t.Text)
	if fixed > maxPromptBytes {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID,
			"the message is %d KiB, and a turn on a coding CLI takes at most %d KiB (its prompt is one command-line argument): shorten it, split it, or send the text as a file",
			(fixed+1023)/1024, maxPromptBytes/1024)
	}
	var b strings.Builder
	b.WriteString(head)
	if t.Session == "" {
		if h := conversation(t.History, maxPromptBytes-fixed-len(opening)-len(closing)); h != "" {
			b.WriteString(opening + h + closing)
		}
	}
	b.WriteString(t.Text)
	return b.String(), nil
}
