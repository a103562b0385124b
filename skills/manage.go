package skills

import (
	"context"
	"fmt"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/namedir"
	"github.com/jarvisbot/jarvisbot/store"
)

// Records is what managing the owner's skills keeps in the store: the
// switches (S5) and where each skill came from (S6, S7).
type Records interface {
	store.SkillSwitches
	store.SkillRecords
}

// InstallPath is where the owner's skill name would be installed; a skill
// of that name there already is an ECONFLICT error that says how to make
// room.
func InstallPath(dataDir, name string) (string, error) {
	dest, kind, err := OwnDir(dataDir).Stat(name)
	if err != nil {
		return "", err
	}
	if kind != namedir.Missing {
		return "", jarvisbot.Errorf(jarvisbot.ECONFLICT, "a skill named %q is installed already at %s: remove it first (jarvisbot skills remove %s)", name, dest, name)
	}
	return dest, nil
}

// AddOwn installs an imported skill into the owner's folder (S6), on,
// with a record of where it came from and what was ignored. A skill whose
// record cannot be stored is removed again: none is left half-installed.
func AddOwn(ctx context.Context, db Records, dataDir, src string, in Incoming) error {
	dest, err := InstallPath(dataDir, in.Name)
	if err != nil {
		return err
	}
	if err := Install(dest, in.Skill); err != nil {
		return err
	}
	var dropped []string
	for _, d := range in.Dropped {
		dropped = append(dropped, d.Field+": "+d.Reason)
	}
	if err := db.RecordSkill(ctx, store.SkillRecord{Skill: "skill:" + in.Name, Origin: store.SkillImported, Source: src, Dropped: dropped}); err != nil {
		if _, rerr := OwnDir(dataDir).Remove(in.Name); rerr != nil {
			return fmt.Errorf("%w; and the skill written to %s could not be removed again: %v", err, dest, rerr)
		}
		return err
	}
	return nil
}

// Promote makes an agent's own skill global as a draft (S7): it moves to
// the owner's folder switched off, until the owner switches it on. Both
// names are checked before they become paths, and a skill folder that is
// a link is neither read nor moved (X1).
func Promote(ctx context.Context, db Records, dataDir, agent, name string) (*Skill, error) {
	name = strings.TrimPrefix(name, "skill:")
	from := AgentDir(dataDir, agent)
	dir, err := from.Folder(name)
	if err != nil {
		if jarvisbot.ErrorCode(err) == jarvisbot.ENOTFOUND {
			return nil, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "agent %s has no skill %q (its skills are in %s)", agent, name, from.Path())
		}
		return nil, err
	}
	s, err := Load(dir)
	if err != nil {
		return nil, err
	}
	to := OwnDir(dataDir)
	if _, kind, err := to.Stat(s.Name); err != nil {
		return nil, err
	} else if kind != namedir.Missing {
		return nil, jarvisbot.Errorf(jarvisbot.ECONFLICT, "a global skill named %q exists already in %s", s.Name, to.Path())
	}
	id := "skill:" + s.Name
	// Switch off first: the skill must never be global and on by accident.
	if err := db.SetSkillEnabled(ctx, id, false); err != nil {
		return nil, err
	}
	if _, err := from.Move(name, to); err != nil {
		return nil, err
	}
	return s, db.RecordSkill(ctx, store.SkillRecord{Skill: id, Origin: store.SkillPromoted, Source: "agent " + agent})
}

// RemoveOwn deletes one of the owner's skills with its record and switch;
// shipped skills can only be switched off. The name must be a plain skill
// name; a skill folder that is a link is removed as a link, never what it
// leads to (X1), and link says so. No such skill is an ENOTFOUND error.
func RemoveOwn(ctx context.Context, db Records, dataDir, name string) (link bool, err error) {
	name = strings.TrimPrefix(name, "skill:")
	own := OwnDir(dataDir)
	_, kind, err := own.Stat(name)
	if err != nil {
		return false, err
	}
	if kind == namedir.Missing {
		return false, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "you have no skill %q in %s", name, own.Path())
	}
	if link, err = own.Remove(name); err != nil {
		return false, err
	}
	id := "skill:" + name
	if err := db.ForgetSkill(ctx, id); err != nil {
		return false, err
	}
	return link, db.ClearSkillSwitch(ctx, id)
}
