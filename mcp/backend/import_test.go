package backend_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/mcp/backend"
	"github.com/jarvisbot/jarvisbot/mcp/surface"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// withSkills gives the fixture two skills on by default, switched as the
// store says, and a schedule for one of them.
func withSkills(f *fixture) {
	f.svc.SkillList = func(ctx context.Context) ([]surface.Skill, error) {
		sw, err := f.db.SkillSwitches(ctx)
		if err != nil {
			return nil, err
		}
		var out []surface.Skill
		for _, n := range []string{"humanizer", "morning-brief"} {
			k := surface.Skill{Name: n, Enabled: true}
			if on, ok := sw["skill:"+n]; ok && !on {
				k.Enabled, k.Off = false, skills.WhySwitchedOff
			}
			out = append(out, k)
		}
		return out, nil
	}
	f.svc.ScheduleList = func(ctx context.Context) ([]surface.ScheduleEntry, error) {
		st, err := f.db.ScheduleState(ctx, "morning-brief")
		return []surface.ScheduleEntry{{Skill: "morning-brief", Schedule: "0 7 * * *", Paused: st.Paused}}, err
	}
}

// TestImportRoundTripsExportM4: a skill switched off, a paused schedule
// and an agent with its allow and block lists are exported so, and an
// import into another jarvisbot brings them the same way; importing again
// changes nothing.
func TestImportRoundTripsExportM4(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	withSkills(f)
	if err := f.db.CreateAgent(ctx, store.Agent{Name: "reviewer", Description: "reviews pull requests", Allow: []string{"cli:gh", "builtin:wiki"}, Block: []string{"builtin:browser"}}); err != nil {
		t.Fatal(err)
	}
	if err := f.db.SetSkillEnabled(ctx, "skill:humanizer", false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.UpdateScheduleState(ctx, "morning-brief", func(st *store.ScheduleState) { st.Paused = true }); err != nil {
		t.Fatal(err)
	}
	raw, err := f.svc.Export(ctx)
	if err != nil {
		t.Fatal(err)
	}

	other := newFixture(t)
	withSkills(other)
	rep, err := other.svc.Import(ctx, raw, false)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	want := []string{"agent reviewer", "schedule of morning-brief: paused", "skill humanizer: switched off"}
	if got := slices.Sorted(slices.Values(rep.Added)); !slices.Equal(got, want) {
		t.Errorf("added %q, want %q", got, want)
	}
	if a, err := other.db.Agent(ctx, "reviewer"); err != nil || !slices.Equal(a.Allow, []string{"cli:gh", "builtin:wiki"}) || !slices.Equal(a.Block, []string{"builtin:browser"}) {
		t.Errorf("imported agent %+v, %v; want its allow and block lists as exported", a, err)
	}
	if sw, _ := other.db.SkillSwitches(ctx); sw["skill:humanizer"] || len(sw) != 1 {
		t.Errorf("switches after the import: %v, want humanizer off", sw)
	}
	if st, _ := other.db.ScheduleState(ctx, "morning-brief"); !st.Paused {
		t.Error("the paused schedule was imported running")
	}
	again, err := other.svc.Export(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(raw) {
		t.Errorf("export after the import differs:\n%s\n%s", raw, again)
	}
	if rep, err := other.svc.Import(ctx, raw, false); err != nil || len(rep.Added) != 0 {
		t.Errorf("a second import: %+v, %v", rep, err)
	}
}

// TestImportIsAllOrNothingM4: a part the store would refuse (a 2 KiB
// description, a bad agent name) fails the import before anything is
// written; the dry run reports the same refusals and writes nothing; a
// write that fails half-way is taken back.
func TestImportIsAllOrNothingM4(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	withSkills(f)
	data := json.RawMessage(`{"format":"` + backend.ExportFormat + `",
		"agents":[{"name":"reviewer","description":"reviews pull requests"},
		          {"name":"big","description":"` + strings.Repeat("x", 2<<10) + `"},
		          {"name":"Bad Name","description":"x"}],
		"skills":[{"name":"humanizer","enabled":false}]}`)

	dry, err := f.svc.Import(ctx, data, true)
	if err != nil {
		t.Fatalf("dry run: %v", err)
	}
	if len(dry.Refused) != 2 || !strings.Contains(dry.Refused[0], "Bad Name") || !strings.Contains(dry.Refused[1], "at most 1 KiB") || len(dry.Added) != 0 {
		t.Errorf("dry run report %+v, want the two refusals and nothing added", dry)
	}
	_, err = f.svc.Import(ctx, data, false)
	if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "added nothing") {
		t.Fatalf("import: %v, want EINVALID saying nothing was added", err)
	}
	for _, r := range dry.Refused {
		if !strings.Contains(err.Error(), r) {
			t.Errorf("the import's error does not give the dry run's refusal %q: %v", r, err)
		}
	}
	if _, err := f.db.Agent(ctx, "reviewer"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("a refused import added agent reviewer: %v", err)
	}
	if sw, _ := f.db.SkillSwitches(ctx); len(sw) != 0 {
		t.Errorf("a refused import switched skills: %v", sw)
	}

	// A write that fails after others were made takes them back.
	ok := json.RawMessage(`{"format":"` + backend.ExportFormat + `",
		"agents":[{"name":"reviewer","description":"reviews pull requests"}],
		"skills":[{"name":"humanizer","enabled":false}]}`)
	f.svc.Store = failingSwitches{f.db}
	if _, err := f.svc.Import(ctx, ok, false); err == nil || !strings.Contains(err.Error(), "nothing of the import was kept") {
		t.Fatalf("import with a failing write: %v", err)
	}
	if _, err := f.db.Agent(ctx, "reviewer"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("the agent written before the failure stayed: %v", err)
	}
}

// failingSwitches is a store whose skill switches cannot be written.
type failingSwitches struct{ backend.Store }

func (failingSwitches) SetSkillEnabled(context.Context, string, bool) error {
	return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%w", errors.New("the disk is full"))
}
