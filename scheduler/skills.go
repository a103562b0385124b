package scheduler

import (
	"context"
	"fmt"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// Entries are the skills of list that carry a schedule, each run by the
// agent it names (jarvisbot.agent), else by agent. Imported skills never
// carry one: the importer drops their schedules and agents (S6).
func Entries(list []*skills.Skill, agent string) []Entry {
	var entries []Entry
	for _, s := range list {
		if s.Schedule != "" {
			runs := agent
			if s.Agent != "" {
				runs = s.Agent
			}
			entries = append(entries, Entry{Skill: s.Name, Spec: s.Schedule, Zone: s.TimeZone, Agent: runs, Chat: s.Chat, Instructions: s.Body})
		}
	}
	return entries
}

// A Prompt is what a scheduled run asks of an agent in a chat.
type Prompt struct {
	Agent, Chat, Text string
	// Skill is the scheduled skill being run, for the usage record.
	Skill string
}

// Turns is the agent runtime as a scheduled run uses it: the scheduler
// fires runs and knows no runtime type, so the caller adapts its own.
type Turns struct {
	// Ready says what to set when an agent has no model, without
	// reaching the model.
	Ready func(agent string) error
	// Turn runs one headless turn and returns its reply, the run's report.
	Turn func(ctx context.Context, p Prompt) (string, error)
}

// SkillRunner runs a scheduled skill as a headless turn of its agent,
// with the skill as its instructions.
func SkillRunner(t Turns) Runner {
	return func(ctx context.Context, e Entry, chat string) (string, error) {
		// Asked before the turn, so that a missing model is told apart from
		// a failed turn: the run is then recorded as not run, and the owner
		// told once what to set (SC1).
		if err := t.Ready(e.Agent); err != nil {
			return "", fmt.Errorf("%w for agent %s: %w", ErrNoModel, e.Agent, err)
		}
		text := fmt.Sprintf("It is time for your scheduled skill %q. Follow its instructions now and write the report for the owner.\n\n%s", e.Skill, strings.TrimSpace(e.Instructions))
		return t.Turn(ctx, Prompt{Agent: e.Agent, Chat: chat, Text: text, Skill: e.Skill})
	}
}

// RunError says what became of a run started by hand: nil when it ran
// and its report was made, else why not, as an error the owner can act on.
func RunError(r store.Run) error {
	switch r.Outcome {
	case "ok":
		return nil
	case "not-run":
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s did not run: %s", r.Skill, r.Error)
	case OutcomeOverBudget:
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s did not run: %s", r.Skill, r.Error)
	}
	return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the run failed: %s", r.Error)
}
