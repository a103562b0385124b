package scheduler

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestEntriesAreTheClockMarkedSkillsSC1: only skills with a schedule
// become entries, with their zone, chat and body, run by the agent the
// skill names, else the agent given.
func TestEntriesAreTheClockMarkedSkillsSC1(t *testing.T) {
	entries := Entries([]*skills.Skill{
		{Name: "humanizer", Body: "no clock"},
		{Name: "morning-brief", Schedule: "0 7 * * *", TimeZone: "Europe/Berlin", Chat: "telegram:42", Body: "Brief me."},
		{Name: "inbox-brief", Schedule: "30 7 * * *", Agent: "inbox", Body: "Sort my mail."},
	}, "default")
	want := []Entry{
		{Skill: "morning-brief", Spec: "0 7 * * *", Zone: "Europe/Berlin", Agent: "default", Chat: "telegram:42", Instructions: "Brief me."},
		{Skill: "inbox-brief", Spec: "30 7 * * *", Agent: "inbox", Instructions: "Sort my mail."}, // the agent the skill names
	}
	if len(entries) != 2 || entries[0] != want[0] || entries[1] != want[1] {
		t.Errorf("entries = %+v, want %+v", entries, want)
	}
}

// TestSkillRunnerSC1: a run is a headless turn of the entry's agent that
// names the skill and carries its instructions; an agent without a model
// is told apart from a failed turn (ErrNoModel) and reaches no turn.
func TestSkillRunnerSC1(t *testing.T) {
	var got []Prompt
	turns := Turns{
		Ready: func(agent string) error {
			if agent == "nomodel" {
				return errors.New("set JARVIS_MODEL")
			}
			return nil
		},
		Turn: func(_ context.Context, p Prompt) (string, error) {
			got = append(got, p)
			return "the report", nil
		},
	}
	run := SkillRunner(turns)
	report, err := run(context.Background(), Entry{Skill: "morning-brief", Agent: "default", Instructions: "  Brief me.\n"}, "telegram:42")
	if err != nil || report != "the report" {
		t.Fatalf("run = %q, %v", report, err)
	}
	if len(got) != 1 || got[0].Agent != "default" || got[0].Chat != "telegram:42" ||
		!strings.Contains(got[0].Text, `scheduled skill "morning-brief"`) || !strings.HasSuffix(got[0].Text, "\n\nBrief me.") {
		t.Errorf("turn input %+v", got)
	}
	_, err = run(context.Background(), Entry{Skill: "x", Agent: "nomodel"}, "console")
	if !errors.Is(err, ErrNoModel) || !strings.Contains(err.Error(), "for agent nomodel: set JARVIS_MODEL") || len(got) != 1 {
		t.Errorf("without a model: %v (turns: %d)", err, len(got))
	}
}

// TestRunErrorSC1: a run by hand that ran is no error; one not run says
// why with a usage code; a failed one says it failed.
func TestRunErrorSC1(t *testing.T) {
	for _, tc := range []struct {
		run  store.Run
		code jarvisbot.Code
		text string
	}{
		{store.Run{Skill: "b", Outcome: "ok"}, "", ""},
		{store.Run{Skill: "b", Outcome: "not-run", Error: "no model is configured"}, jarvisbot.EINVALID, "b did not run: no model is configured"},
		{store.Run{Skill: "b", Outcome: "failed", Error: "the model timed out"}, jarvisbot.EUNAVAILABLE, "the run failed: the model timed out"},
	} {
		err := RunError(tc.run)
		if jarvisbot.ErrorCode(err) != tc.code || (err != nil && err.Error() != tc.text) {
			t.Errorf("%+v: %v (code %q), want %q (%q)", tc.run, err, jarvisbot.ErrorCode(err), tc.text, tc.code)
		}
	}
}
