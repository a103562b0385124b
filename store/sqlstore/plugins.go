package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

var (
	_ store.Plugins      = (*DB)(nil)
	_ store.SkillRecords = (*DB)(nil)
)

func validPluginState(s store.PluginState) error {
	switch s {
	case store.PluginInstalled, store.PluginConnected, store.PluginNeedsAttention:
		return nil
	}
	return jarvisbot.Errorf(jarvisbot.EINVALID, "plugin state %q: want installed, connected or needs-attention", s)
}

// InstallPlugin records a plugin as installed.
func (db *DB) InstallPlugin(ctx context.Context, name string, state store.PluginState) error {
	if err := validPluginState(state); err != nil {
		return err
	}
	now := formatTime(db.now())
	res, err := db.db.ExecContext(ctx, `INSERT INTO plugins (name, state, installed_at, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (name) DO NOTHING`, name, string(state), now, now)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "installing plugin %s in %s: %w", name, db.path, err)
	}
	n, err := db.affected(res, "installing plugin "+name)
	if err != nil {
		return err
	}
	if n == 0 {
		return jarvisbot.Errorf(jarvisbot.ECONFLICT, "plugin %s is installed already", name)
	}
	return nil
}

// InstalledPlugin returns the record of an installed plugin.
func (db *DB) InstalledPlugin(ctx context.Context, name string) (store.InstalledPlugin, error) {
	row := db.db.QueryRowContext(ctx, `SELECT name, state, installed_at, updated_at FROM plugins WHERE name = ?`, name)
	p, err := scanPlugin(row)
	if errors.Is(err, sql.ErrNoRows) {
		return p, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "plugin %s is not installed", name)
	}
	if err != nil {
		return p, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading plugin %s from %s: %w", name, db.path, err)
	}
	return p, nil
}

// InstalledPlugins returns every installed plugin sorted by name.
func (db *DB) InstalledPlugins(ctx context.Context) ([]store.InstalledPlugin, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT name, state, installed_at, updated_at FROM plugins ORDER BY name`)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "listing plugins in %s: %w", db.path, err)
	}
	defer rows.Close()
	var out []store.InstalledPlugin
	for rows.Next() {
		p, err := scanPlugin(rows)
		if err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "listing plugins in %s: %w", db.path, err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "listing plugins in %s: %w", db.path, err)
	}
	return out, nil
}

func scanPlugin(r interface{ Scan(...any) error }) (store.InstalledPlugin, error) {
	var p store.InstalledPlugin
	var state, installed, updated string
	if err := r.Scan(&p.Name, &state, &installed, &updated); err != nil {
		return p, err
	}
	p.State = store.PluginState(state)
	var err error
	if p.InstalledAt, err = parseTime(installed); err != nil {
		return p, err
	}
	p.UpdatedAt, err = parseTime(updated)
	return p, err
}

// SetPluginState changes an installed plugin's state.
func (db *DB) SetPluginState(ctx context.Context, name string, state store.PluginState) error {
	if err := validPluginState(state); err != nil {
		return err
	}
	res, err := db.db.ExecContext(ctx, `UPDATE plugins SET state = ?, updated_at = ? WHERE name = ?`, string(state), formatTime(db.now()), name)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "changing plugin %s in %s: %w", name, db.path, err)
	}
	n, err := db.affected(res, "changing plugin "+name)
	if err != nil {
		return err
	}
	if n == 0 {
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "plugin %s is not installed", name)
	}
	return nil
}

// RemovePlugin forgets an installed plugin.
func (db *DB) RemovePlugin(ctx context.Context, name string) error {
	res, err := db.db.ExecContext(ctx, `DELETE FROM plugins WHERE name = ?`, name)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "removing plugin %s from %s: %w", name, db.path, err)
	}
	n, err := db.affected(res, "removing plugin "+name)
	if err != nil {
		return err
	}
	if n == 0 {
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "plugin %s is not installed", name)
	}
	return nil
}

// RecordSkill stores or replaces where a skill came from.
func (db *DB) RecordSkill(ctx context.Context, r store.SkillRecord) error {
	if err := validSkillID(r.Skill); err != nil {
		return err
	}
	if r.Origin != store.SkillImported && r.Origin != store.SkillPromoted {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "skill origin %q: want imported or promoted", r.Origin)
	}
	dropped, err := json.Marshal(nonNil(r.Dropped))
	if err != nil {
		return fmt.Errorf("encode dropped fields: %w", err)
	}
	_, err = db.db.ExecContext(ctx, `INSERT INTO skill_records (skill, origin, source, dropped, recorded_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (skill) DO UPDATE SET origin = excluded.origin, source = excluded.source, dropped = excluded.dropped, recorded_at = excluded.recorded_at`,
		r.Skill, string(r.Origin), r.Source, string(dropped), formatTime(db.now()))
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "recording skill %s in %s: %w", r.Skill, db.path, err)
	}
	return nil
}

// SkillRecord returns where a skill came from.
func (db *DB) SkillRecord(ctx context.Context, skill string) (store.SkillRecord, error) {
	r := store.SkillRecord{Skill: skill}
	var origin, dropped, at string
	err := db.db.QueryRowContext(ctx, `SELECT origin, source, dropped, recorded_at FROM skill_records WHERE skill = ?`, skill).Scan(&origin, &r.Source, &dropped, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return r, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no record of skill %s", skill)
	}
	if err == nil {
		r.Origin = store.SkillOrigin(origin)
		if err = json.Unmarshal([]byte(dropped), &r.Dropped); err == nil {
			r.RecordedAt, err = parseTime(at)
		}
	}
	if err != nil {
		return r, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading skill record %s from %s: %w", skill, db.path, err)
	}
	return r, nil
}

// ForgetSkill removes a skill's record.
func (db *DB) ForgetSkill(ctx context.Context, skill string) error {
	if _, err := db.db.ExecContext(ctx, `DELETE FROM skill_records WHERE skill = ?`, skill); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "forgetting skill %s in %s: %w", skill, db.path, err)
	}
	return nil
}

// nonNil makes a nil list encode as [] rather than null.
func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}
