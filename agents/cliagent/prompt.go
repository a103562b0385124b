package cliagent

import (
	"strings"

	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/llm"
)

// conversation is the history folded into the prompt of a turn that
// starts a CLI session: the CLI has no other way to hear it. Tool calls
// are shown by name only; their results were already answered in the
// text that followed.
func conversation(history []llm.Message) string {
	var b strings.Builder
	for _, m := range history {
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
		b.WriteString(who + ": " + text + "\n")
	}
	return b.String()
}

// prompt is what the CLI is given for the turn: the owner's message, and
// when no session is resumed the conversation before it; system, when
// set, goes first (Codex has no other place for it).
func prompt(t agents.DelegateTurn, system string) string {
	var b strings.Builder
	if system != "" {
		b.WriteString("<instructions>\n" + strings.TrimSpace(system) + "\n</instructions>\n\n")
	}
	if t.Session == "" {
		if h := conversation(t.History); h != "" {
			b.WriteString("<conversation_so_far>\n" + h + "</conversation_so_far>\n\nThe owner's new message:\n")
		}
	}
	b.WriteString(t.Text)
	return b.String()
}
