package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/llm"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// systemPrompt is the stable part of every turn of an agent: the same
// bytes turn after turn, so providers can cache it.
func systemPrompt(ag store.Agent, v *catalog.View) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are %s, a personal assistant of one owner, working through jarvisbot.", ag.Name)
	if ag.Description != "" {
		fmt.Fprintf(&b, " Your job: %s", strings.TrimSpace(ag.Description))
	}
	b.WriteString("\n\nUse the tools you are given when they help; read before you change anything. " +
		"Some tools wait for the owner's approval: if one is denied or expires, do not retry it. " +
		"Answer plainly and briefly, in the owner's language.")
	if len(ag.Focus) > 0 {
		b.WriteString("\n\nThese tools are your own, the ones you are for: " + strings.Join(ag.Focus, ", ") + ". You may use the others too.")
	}
	b.WriteString("\nYou can ask for any enabled skill by name with the skills tool (action use), and save a procedure you worked out as a skill of your own (action save).")
	return b.String()
}

// skillsPrompt is this turn's skills (S4): an instruction-only skill's
// text is followed; a tool-using one is offered, and the model decides.
func skillsPrompt(list []entered) string {
	var b strings.Builder
	for _, e := range list {
		body := strings.TrimSpace(e.skill.Body)
		if len(body) > 4000 {
			body = body[:4000] + "\n[…]"
		}
		switch e.entry {
		case skills.EntryTakeOver:
			fmt.Fprintf(&b, "Follow the skill %q for this message:\n%s\n\n", e.skill.Name, body)
		default:
			fmt.Fprintf(&b, "The skill %q may fit this message; use it only if it does:\n%s\n\n", e.skill.Name, body)
		}
	}
	return strings.TrimSpace(b.String())
}

// maxOldResult is how long a tool result from an earlier turn may stay in
// the history; longer ones are cut to their start.
const maxOldResult = 2000

// history loads the conversation within the token budget, oldest trimmed
// first. It never starts with tool results whose calls were trimmed.
func (r *Runtime) history(ctx context.Context, chat string) ([]llm.Message, error) {
	stored, err := r.Store.History(ctx, chat, 400)
	if err != nil {
		return nil, err
	}
	budget := r.HistoryTokens
	if budget <= 0 {
		budget = defaultHistory
	}
	msgs := make([]llm.Message, 0, len(stored))
	for _, s := range stored {
		var m llm.Message
		if err := json.Unmarshal(s.Content, &m); err != nil {
			continue // a damaged row costs that message only
		}
		msgs = append(msgs, m)
	}
	// The last message is this turn's: keep everything of it whole.
	for i := range msgs[:max(len(msgs)-1, 0)] {
		for j := range msgs[i].ToolResults {
			if c := msgs[i].ToolResults[j].Content; len(c) > maxOldResult {
				msgs[i].ToolResults[j].Content = c[:maxOldResult] + fmt.Sprintf("\n[result shortened from %d bytes]", len(c))
			}
		}
	}
	start, used := len(msgs), 0
	for start > 0 {
		n := tokens(msgs[start-1])
		if used+n > budget && start < len(msgs) {
			break
		}
		used += n
		start--
	}
	msgs = msgs[start:]
	// Start at a user message that carries text, not at orphaned results.
	for len(msgs) > 1 && (msgs[0].Role != llm.RoleUser || len(msgs[0].ToolResults) > 0) {
		msgs = msgs[1:]
	}
	return msgs, nil
}

func tokens(m llm.Message) int {
	n := len(m.Text)
	for _, c := range m.ToolCalls {
		n += len(c.Input) + len(c.Name)
	}
	for _, r := range m.ToolResults {
		n += len(r.Content)
	}
	return n/4 + 4
}
