package sqlstore

import (
	"context"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

var _ store.SkillSwitches = (*DB)(nil)

func validSkillID(id string) error {
	if !strings.HasPrefix(id, "skill:") || len(id) <= len("skill:") || len(id) > 200 {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "skill id %q: want skill:NAME", id)
	}
	return nil
}

// SetSkillEnabled records the owner's switch for a skill.
func (db *DB) SetSkillEnabled(ctx context.Context, skill string, enabled bool) error {
	if err := validSkillID(skill); err != nil {
		return err
	}
	on := 0
	if enabled {
		on = 1
	}
	_, err := db.db.ExecContext(ctx, `INSERT INTO skill_switches (skill, enabled, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (skill) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at`,
		skill, on, formatTime(db.now()))
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "switching skill %s in %s: %w", skill, db.path, err)
	}
	return nil
}

// SkillSwitches returns every recorded switch.
func (db *DB) SkillSwitches(ctx context.Context) (map[string]bool, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT skill, enabled FROM skill_switches`)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading skill switches from %s: %w", db.path, err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		var on int
		if err := rows.Scan(&id, &on); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading skill switches from %s: %w", db.path, err)
		}
		out[id] = on == 1
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading skill switches from %s: %w", db.path, err)
	}
	return out, nil
}

// ClearSkillSwitch forgets the owner's switch for a skill.
func (db *DB) ClearSkillSwitch(ctx context.Context, skill string) error {
	if _, err := db.db.ExecContext(ctx, `DELETE FROM skill_switches WHERE skill = ?`, skill); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "clearing skill switch %s in %s: %w", skill, db.path, err)
	}
	return nil
}
