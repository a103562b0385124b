package app

import (
	"io"

	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/skills"
)

// SkillScope is the scope of an agent's skills in cfg's data directory:
// the shipped general skills, the manuals of the plugin collection (read
// now; those of the plugins in on are on), the owner's and the agent's own.
func SkillScope(cfg config.Config, agent string, on map[string]bool, warn io.Writer) (skills.Scope, error) {
	all, err := collection.Load(cfg.DataDir, warn)
	if err != nil {
		return skills.Scope{}, err
	}
	return skills.Scope{DataDir: cfg.DataDir, Agent: agent, Manuals: all.Manuals(), Connected: on}, nil
}
