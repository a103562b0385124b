package backend

import (
	"context"
	"encoding/json"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/mcp/surface"
)

// ExportFormat names the export's format.
const ExportFormat = app.ExportFormat

// setup is the service's setup as the app layer exports and imports it:
// the skills and schedules as this surface lists them.
func (s *Service) setup() app.Setup {
	st := app.Setup{Store: s.Store, Focus: s.Focus}
	if s.SkillList != nil {
		st.Skills = func(ctx context.Context) ([]app.SkillSwitch, error) {
			list, err := s.SkillList(ctx)
			out := make([]app.SkillSwitch, 0, len(list))
			for _, k := range list {
				out = append(out, app.SkillSwitch{Name: k.Name, Enabled: k.Enabled, Off: k.Off})
			}
			return out, err
		}
	}
	if s.ScheduleList != nil {
		st.Schedule = func(ctx context.Context) ([]app.ScheduleSwitch, error) {
			list, err := s.ScheduleList(ctx)
			out := make([]app.ScheduleSwitch, 0, len(list))
			for _, e := range list {
				out = append(out, app.ScheduleSwitch{Skill: e.Skill, Schedule: e.Schedule, Paused: e.Paused})
			}
			return out, err
		}
	}
	return st
}

// Export writes the setup as JSON.
func (s *Service) Export(ctx context.Context) (json.RawMessage, error) {
	ex, err := s.setup().Export(ctx)
	if err != nil {
		return nil, err
	}
	return json.Marshal(ex)
}

// Import takes back what Export gave: all or nothing, or a dry run that
// says what it would do (app.Setup.Import).
func (s *Service) Import(ctx context.Context, data json.RawMessage, dryRun bool) (surface.ImportReport, error) {
	rep, err := s.setup().Import(ctx, data, dryRun)
	return surface.ImportReport{DryRun: rep.DryRun, Added: rep.Added, Skipped: rep.Skipped, Refused: rep.Refused}, err
}
