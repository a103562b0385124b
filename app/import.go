package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/internal/names"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// Import takes back what export gave (M4): agents this jarvisbot lacks
// (their focus chosen anew; their allow and block lists, which only
// narrow what they reach), the owner's skill switches and the pauses of
// scheduled skills, each as it was exported. It never adds MCP servers;
// those are skipped with the reason.
//
// An import is all or nothing: every part is checked first, with the
// checks the store applies, and when any is refused nothing is written and
// the error lists the refusals. A dry run makes the same checks and
// reports the same refusals, without writing. Should a write fail
// half-way, what the import wrote is undone.
func (s Setup) Import(ctx context.Context, data []byte, dryRun bool) (ImportReport, error) {
	rep := ImportReport{DryRun: dryRun, Added: []string{}, Skipped: []string{}}
	var ex Export
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&ex); err != nil {
		return rep, jarvisbot.Errorf(jarvisbot.EINVALID, "the import is not a jarvisbot export: %v", err)
	}
	if ex.Format != ExportFormat {
		return rep, jarvisbot.Errorf(jarvisbot.EINVALID, "the import's format is %q, want %q (the output of export)", ex.Format, ExportFormat)
	}
	steps, err := s.planImport(ctx, ex, &rep)
	if err != nil {
		return rep, err
	}
	slices.Sort(rep.Skipped)
	slices.Sort(rep.Refused)
	if len(rep.Refused) > 0 {
		rep.Added = []string{} // a real import would add none of them
		if dryRun {
			return rep, nil
		}
		return rep, jarvisbot.Errorf(jarvisbot.EINVALID, "the import added nothing, because %s: fix the data and import again (dry_run lists every refusal)", refusals(rep.Refused))
	}
	for _, st := range steps {
		rep.Added = append(rep.Added, st.what)
	}
	if dryRun {
		return rep, nil
	}
	if err := applyImport(ctx, steps); err != nil {
		rep.Added = []string{}
		return rep, err
	}
	return rep, nil
}

// ImportReport is what an import did, or a dry run would do.
type ImportReport struct {
	DryRun bool
	Added  []string
	// Skipped are the parts left out, with the reason: "agent reviewer:
	// exists".
	Skipped []string
	// Refused are the parts that fail the import, with the reason: an
	// import adds all of its parts or, when any is refused, none. A dry
	// run lists them as the import would refuse them.
	Refused []string
}

// importStep is one write of an import, with the write that takes it back.
type importStep struct {
	what     string // as the report says it: "agent reviewer"
	do, undo func(ctx context.Context) error
}

// refusals says the first refusals in a sentence; the dry run has all.
func refusals(list []string) string {
	const shown = 5
	if len(list) <= shown {
		return strings.Join(list, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(list[:shown], "; "), len(list)-shown)
}

// planImport checks every part of ex and returns the writes it needs;
// what is skipped or refused goes into rep. Nothing is written.
func (s Setup) planImport(ctx context.Context, ex Export, rep *ImportReport) ([]importStep, error) {
	var steps []importStep
	refuse := func(format string, args ...any) { rep.Refused = append(rep.Refused, fmt.Sprintf(format, args...)) }
	skip := func(format string, args ...any) { rep.Skipped = append(rep.Skipped, fmt.Sprintf(format, args...)) }

	seen := map[string]bool{}
	for _, a := range ex.Agents {
		name := visible.Line(a.Name)
		if err := names.ValidAgent(a.Name); err != nil {
			refuse("agent %s: %v", name, err)
			continue
		}
		if seen[a.Name] {
			refuse("agent %s: listed twice", name)
			continue
		}
		seen[a.Name] = true
		switch _, err := s.Store.Agent(ctx, a.Name); {
		case err == nil:
			skip("agent %s: exists", name)
			continue
		case jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND:
			return nil, err
		}
		if strings.TrimSpace(a.Description) == "" {
			refuse("agent %s: has no description, which chooses what it is for", name)
			continue
		}
		if err := store.ValidAgentDescription(a.Name, a.Description); err != nil {
			refuse("agent %s: %v", name, err)
			continue
		}
		// An allow list only narrows what the agent is granted (the
		// never-list and tiers still apply), so importing it extends
		// nothing and keeps the round trip.
		spec := agents.Spec{Description: a.Description, Allow: strings.Join(a.Allow, ","), Block: strings.Join(a.Block, ",")}
		steps = append(steps, importStep{what: "agent " + a.Name,
			do: func(ctx context.Context) error {
				_, err := agents.Add(ctx, s.Store, s.Focus, a.Name, spec)
				return err
			},
			undo: func(ctx context.Context) error { return s.Store.DeleteAgent(ctx, a.Name) }})
	}

	skillSteps, err := s.planSkills(ctx, ex.Skills, refuse, skip)
	if err != nil {
		return nil, err
	}
	steps = append(steps, skillSteps...)
	schedSteps, err := s.planSchedules(ctx, ex.Schedules, refuse, skip)
	if err != nil {
		return nil, err
	}
	steps = append(steps, schedSteps...)

	for _, m := range ex.MCPServers {
		skip("mcp server %s: no app adds MCP servers; the owner adds them with jarvisbot mcp add", visible.Line(m.Name))
	}
	return steps, nil
}

// planSkills turns the exported switches into the owner's switches here:
// a skill switched off there is switched off here, one on there is on
// here unless its plugin is not installed here (which no switch changes).
func (s Setup) planSkills(ctx context.Context, list []ExportSkill, refuse, skip func(string, ...any)) ([]importStep, error) {
	if len(list) == 0 {
		return nil, nil
	}
	if s.Skills == nil {
		skip("skills: this jarvisbot cannot list its skills now")
		return nil, nil
	}
	here, err := s.Skills(ctx)
	if err != nil {
		return nil, err
	}
	byName := map[string]SkillSwitch{}
	for _, k := range here {
		byName[k.Name] = k
	}
	switches, err := s.Store.SkillSwitches(ctx)
	if err != nil {
		return nil, err
	}
	var steps []importStep
	seen := map[string]bool{}
	for _, k := range list {
		name := visible.Line(k.Name)
		switch {
		case strings.TrimSpace(k.Name) == "":
			refuse("a skill without a name")
			continue
		case seen[k.Name]:
			refuse("skill %s: listed twice", name)
			continue
		}
		seen[k.Name] = true
		h, ok := byName[k.Name]
		if !ok {
			skip("skill %s: not installed here", name)
			continue
		}
		// What the export says the owner's switch is: off only when
		// the owner switched it off (an export without the reason
		// predates it: off is then the switch).
		on := k.Enabled || k.Off != "" && k.Off != skills.WhySwitchedOff
		hereOn := h.Enabled || h.Off != skills.WhySwitchedOff
		if on == hereOn {
			if k.Enabled && h.Off == skills.WhyNotInstalled {
				skip("skill %s: on there, but off here until its plugin is installed (jarvisbot plugins install)", name)
			}
			continue
		}
		id := "skill:" + k.Name
		prev, had := switches[id]
		word := map[bool]string{true: "on", false: "off"}[on]
		steps = append(steps, importStep{what: fmt.Sprintf("skill %s: switched %s", k.Name, word),
			do: func(ctx context.Context) error { return s.Store.SetSkillEnabled(ctx, id, on) },
			undo: func(ctx context.Context) error {
				if had {
					return s.Store.SetSkillEnabled(ctx, id, prev)
				}
				return s.Store.ClearSkillSwitch(ctx, id)
			}})
	}
	return steps, nil
}

// planSchedules pauses (or resumes) the scheduled skills here as they
// were paused there.
func (s Setup) planSchedules(ctx context.Context, list []ExportSchedule, refuse, skip func(string, ...any)) ([]importStep, error) {
	if len(list) == 0 {
		return nil, nil
	}
	if s.Schedule == nil {
		skip("schedules: the schedule is not running here")
		return nil, nil
	}
	here, err := s.Schedule(ctx)
	if err != nil {
		return nil, err
	}
	paused := map[string]bool{}
	for _, e := range here {
		paused[e.Skill] = e.Paused
	}
	var steps []importStep
	seen := map[string]bool{}
	for _, e := range list {
		name := visible.Line(e.Skill)
		switch {
		case strings.TrimSpace(e.Skill) == "":
			refuse("a schedule without its skill")
			continue
		case seen[e.Skill]:
			refuse("schedule of %s: listed twice", name)
			continue
		}
		seen[e.Skill] = true
		prev, ok := paused[e.Skill]
		switch {
		case !ok:
			skip("schedule of %s: the skill has no schedule here", name)
			continue
		case prev == e.Paused:
			continue
		}
		want := e.Paused
		word := map[bool]string{true: "paused", false: "resumed"}[want]
		set := func(p bool) func(ctx context.Context) error {
			return func(ctx context.Context) error {
				_, err := s.Store.UpdateScheduleState(ctx, e.Skill, func(st *store.ScheduleState) { st.Paused = p })
				return err
			}
		}
		steps = append(steps, importStep{what: fmt.Sprintf("schedule of %s: %s", e.Skill, word), do: set(want), undo: set(prev)})
	}
	return steps, nil
}

// applyImport writes the steps in order; when one fails, the ones written
// are taken back (newest first), so that a failed import leaves what was.
func applyImport(ctx context.Context, steps []importStep) error {
	for i, st := range steps {
		err := st.do(ctx)
		if err == nil {
			continue
		}
		failed := jarvisbot.Errorf(jarvisbot.ErrorCode(err), "importing %s: %w", st.what, err)
		var left []string
		var cause error
		for j := i - 1; j >= 0; j-- {
			if uerr := steps[j].undo(context.WithoutCancel(ctx)); uerr != nil {
				left = append(left, steps[j].what)
				cause = uerr
			}
		}
		if len(left) > 0 {
			return errors.Join(failed, jarvisbot.Errorf(jarvisbot.ErrorCode(cause), "these parts of it stay and could not be taken back: %s (%w)", strings.Join(left, ", "), cause))
		}
		return jarvisbot.Errorf(jarvisbot.ErrorCode(err), "%w; nothing of the import was kept", failed)
	}
	return nil
}
