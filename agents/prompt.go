package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/words"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/skillbook"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// systemPrompt is the stable part of every turn of an agent: the same
// bytes turn after turn, so providers can cache it. It lists what the
// agent may reach beyond this turn's tools (C8): the connected services
// and the enabled skills, one short line each, so that a service the
// message's words did not bring is one request away.
func systemPrompt(ag store.Agent, pl *catalog.Plan, enabled []*skills.Skill) string {
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
	writeServices(&b, pl, enabled)
	return b.String()
}

// Bounds that keep the stable prompt short however much is connected:
// lines past these are named only, or counted.
const (
	maxServiceLines = 50
	maxSkillLines   = 60
	maxLineBytes    = 110
)

// writeServices lists the connected services the agent may use and its
// enabled skills (C8), in a fixed order. A service of a store plugin is
// described by its manual, whose line then stands for the manual too.
func writeServices(b *strings.Builder, pl *catalog.Plan, enabled []*skills.Skill) {
	manuals := map[string]*skills.Skill{}
	for _, s := range enabled {
		if s.Plugin != "" && manuals[s.Plugin] == nil {
			manuals[s.Plugin] = s
		}
	}
	services := pl.Services()
	listed := map[string]bool{}
	if len(services) > 0 {
		b.WriteString("\n\nConnected services you may use. A message brings the tools of the services it needs")
		if slices.ContainsFunc(pl.Prefix(), func(cp *catalog.Capability) bool { return cp.ID == skillbook.ID }) {
			b.WriteString("; when it needs one whose tools you were not given, ask for them with the skills tool " +
				`({"action":"tools","service":"NAME"}, or use its manual): they are yours from your next step on`)
		}
		b.WriteString(".")
		var more []string
		for i, s := range services {
			usage := s.Usage
			if m := manuals[s.Plugin]; m != nil {
				usage = m.Description
				listed[m.Name] = true
			}
			if i >= maxServiceLines {
				more = append(more, s.ID)
				continue
			}
			name := s.ID
			if s.Title != "" && words.Key(s.Title) != words.Key(s.ID) {
				name += " (" + s.Title + ")"
			}
			b.WriteString("\n- " + catalog.Shorten(name+": "+usage, maxLineBytes))
		}
		if len(more) > 0 {
			b.WriteString("\n- and " + strings.Join(more, ", "))
		}
	}
	var rest []*skills.Skill
	for _, s := range enabled {
		if !listed[s.Name] && !s.DisableModelInvocation {
			rest = append(rest, s)
		}
	}
	if len(rest) == 0 {
		return
	}
	rest = slices.Clone(rest)
	slices.SortFunc(rest, func(x, y *skills.Skill) int { return strings.Compare(x.Name, y.Name) })
	rest = slices.CompactFunc(rest, func(x, y *skills.Skill) bool { return x.Name == y.Name })
	b.WriteString("\n\nEnabled skills (the skills tool gives one's instructions: action use):")
	for i, s := range rest {
		if i == maxSkillLines {
			fmt.Fprintf(b, "\n- and %d more (action list names them)", len(rest)-i)
			break
		}
		b.WriteString("\n- " + catalog.Shorten(s.Name+": "+s.Description, maxLineBytes))
	}
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

// history loads the agent's conversation in the chat, its messages after
// from, within the token budget, oldest trimmed first. It never starts
// with tool results whose calls were trimmed.
func (r *Runtime) history(ctx context.Context, chat, agent string, from int64) ([]llm.Message, error) {
	stored, err := r.Store.History(ctx, chat, 400)
	if err != nil {
		return nil, err
	}
	budget := r.historyBudget()
	msgs := make([]llm.Message, 0, len(stored))
	for _, s := range stored {
		if s.ID <= from || (s.Agent != agent && s.Agent != "") {
			continue // before /new, told by the summary, or another agent's
		}
		var m llm.Message
		if err := json.Unmarshal(s.Content, &m); err != nil {
			continue // a damaged row costs that message only
		}
		msgs = append(msgs, m)
	}
	msgs = closeOpenCalls(msgs)
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

// unanswered is the result the model sees for a call of an earlier turn
// that has none: that turn stopped (jarvisbot stopped, or it waits for the
// owner's approval) before the call ran.
const unanswered = "This call has no result: its turn stopped before it ran (jarvisbot stopped, or the call still waits for the owner's approval). Do not assume it ran."

// closeOpenCalls gives every tool call that a later message left without
// a result an explicit "no result", so that the conversation stays valid
// for the providers (each tool call answered in the next message) after a
// turn stopped between its calls and their results. Calls at the very end
// stay open: a resumed turn answers them.
func closeOpenCalls(msgs []llm.Message) []llm.Message {
	var out []llm.Message
	for i, m := range msgs {
		out = append(out, m)
		if m.Role != llm.RoleAssistant || len(m.ToolCalls) == 0 || i == len(msgs)-1 {
			continue
		}
		answered := map[string]bool{}
		next := &llm.Message{Role: llm.RoleUser}
		if n := msgs[i+1]; n.Role == llm.RoleUser && len(n.ToolResults) > 0 {
			for _, r := range n.ToolResults {
				answered[r.CallID] = true
			}
			next = nil // the results follow; any missing are added to them below
		}
		var missing []llm.ToolResult
		for _, c := range m.ToolCalls {
			if !answered[c.ID] {
				missing = append(missing, llm.ToolResult{CallID: c.ID, Content: unanswered, IsError: true})
			}
		}
		switch {
		case len(missing) == 0:
		case next != nil:
			next.ToolResults = missing
			out = append(out, *next)
		default:
			msgs[i+1].ToolResults = append(slices.Clone(msgs[i+1].ToolResults), missing...)
		}
	}
	return out
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
