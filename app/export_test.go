package app

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// setupOf is in's setup with two skills and morning-brief's schedule, as
// the store switches and pauses them.
func setupOf(in *Installation) Setup {
	return Setup{Store: in.DB,
		Skills: func(ctx context.Context) ([]SkillSwitch, error) {
			sw, err := in.DB.SkillSwitches(ctx)
			var out []SkillSwitch
			for _, n := range []string{"humanizer", "morning-brief"} {
				k := SkillSwitch{Name: n, Enabled: true}
				if on, ok := sw["skill:"+n]; ok && !on {
					k.Enabled, k.Off = false, skills.WhySwitchedOff
				}
				out = append(out, k)
			}
			return out, err
		},
		Schedule: func(ctx context.Context) ([]ScheduleSwitch, error) {
			st, err := in.DB.ScheduleState(ctx, "morning-brief")
			return []ScheduleSwitch{{Skill: "morning-brief", Schedule: "0 7 * * *", Paused: st.Paused}}, err
		}}
}

// TestExportImportRoundTripM4: the export is the documented format; an
// import elsewhere brings the switched-off skill and the paused schedule
// the same way, a dry run writes nothing, and a second import adds
// nothing.
func TestExportImportRoundTripM4(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	if err := in.DB.SetSkillEnabled(ctx, "skill:humanizer", false); err != nil {
		t.Fatal(err)
	}
	if _, err := in.DB.UpdateScheduleState(ctx, "morning-brief", func(st *store.ScheduleState) { st.Paused = true }); err != nil {
		t.Fatal(err)
	}
	ex, err := setupOf(in).Export(ctx)
	if err != nil || ex.Format != ExportFormat || len(ex.Schedules) != 1 || !ex.Schedules[0].Paused {
		t.Fatalf("export %+v, %v", ex, err)
	}
	raw, err := json.Marshal(ex)
	if err != nil {
		t.Fatal(err)
	}

	other := testInstallation(t, nil)
	dry, err := setupOf(other).Import(ctx, raw, true)
	want := []string{"schedule of morning-brief: paused", "skill humanizer: switched off"}
	if err != nil || !dry.DryRun || !slices.Equal(slices.Sorted(slices.Values(dry.Added)), want) {
		t.Fatalf("dry run %+v, %v; want %q", dry, err, want)
	}
	if sw, _ := other.DB.SkillSwitches(ctx); len(sw) != 0 {
		t.Errorf("a dry run switched skills: %v", sw)
	}
	rep, err := setupOf(other).Import(ctx, raw, false)
	if err != nil || !slices.Equal(slices.Sorted(slices.Values(rep.Added)), want) {
		t.Fatalf("import %+v, %v", rep, err)
	}
	if st, _ := other.DB.ScheduleState(ctx, "morning-brief"); !st.Paused {
		t.Errorf("the imported schedule is not paused")
	}
	if rep, err := setupOf(other).Import(ctx, raw, false); err != nil || len(rep.Added) != 0 {
		t.Errorf("a second import: %+v, %v", rep, err)
	}
}
