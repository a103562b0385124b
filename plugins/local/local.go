// Package local installs a plugin folder of the owner's own (P1, S6, X1,
// X2): the folder is copied into a staging folder in the data directory,
// checked there, shown to the owner in full and moved into place only on
// the owner's yes. Unless the owner trusts the plugin, its skills pass the
// import policy of a foreign SKILL.md: what would grant behaviour (trigger
// words, a tier, a schedule, a voice mark, ...) is left out of the
// installed copy, so the decision holds for every later reading of it.
// What is shown is the staged copy, which is what gets installed: a folder
// changed after the view changes nothing.
package local

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/leftover"
	"github.com/jarvisbot/jarvisbot/internal/namedir"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// Store is what installing a local plugin needs of the store.
type Store interface {
	InstalledPlugin(ctx context.Context, name string) (store.InstalledPlugin, error)
	RecordSkill(ctx context.Context, r store.SkillRecord) error
}

// A Skill is one skill of a staged plugin, as written and as it will be
// installed.
type Skill struct {
	Rel      string // "skills/NAME/SKILL.md"
	Manual   bool   // the plugin's manual
	Original string
	Skill    *skills.Skill // under the import policy
}

// Staged is a plugin folder copied for the owner's decision.
type Staged struct {
	Src, Dest string // where it comes from, where it will live
	Plugin    *plugins.Plugin
	Skills    []Skill // its manual first
}

// Installed is a local plugin in place.
type Installed struct {
	Plugin *plugins.Plugin
	Manual *skills.Skill
	Dir    string
}

// Installer installs plugin folders into Dir.
type Installer struct {
	Dir   namedir.Dir // <data dir>/plugins
	Store Store
	// Trusted honours every field of the plugin's skills.
	Trusted bool
	// Shipped returns the plugin that ships with jarvisbot under a name:
	// a local plugin never replaces one.
	Shipped func(name string) (*plugins.Plugin, bool)
	// Manual reads the manual of the plugin in dir, or stands one in when
	// it brings none.
	Manual func(dir string, p *plugins.Plugin) (*skills.Skill, error)
	// Consent shows the staged plugin to the owner and asks; no installs
	// nothing.
	Consent func(Staged) (bool, error)
}

// Install stages, shows and, on yes, installs the plugin folder src. It
// returns nil when the owner said no.
func (in Installer) Install(ctx context.Context, src string) (_ *Installed, err error) {
	p, err := plugins.Load(src)
	if err != nil {
		return nil, err
	}
	name := p.Manifest.Name
	dest, err := in.check(ctx, src, name)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(in.Dir.Path(), 0o700); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "create %s: %w", in.Dir.Path(), err)
	}
	// A name starting with a dot is not a plain plugin name: the store
	// never takes a staging folder for a plugin.
	stage, err := os.MkdirTemp(in.Dir.Path(), ".install-")
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "create a staging folder in %s: %w", in.Dir.Path(), err)
	}
	defer func() { err = errors.Join(err, leftover.Remove(stage)) }() // gone already once it is moved into place
	st, err := in.stage(src, stage, dest, name)
	if err != nil {
		return nil, err
	}
	if ok, err := in.Consent(st); err != nil || !ok {
		return nil, err
	}
	manual, err := in.settle(stage, st)
	if err != nil {
		return nil, err
	}
	if err := in.place(stage, dest, name); err != nil {
		return nil, err
	}
	if err := in.record(ctx, src, name, st.Skills); err != nil {
		return nil, err
	}
	st.Plugin.Dir = dest
	return &Installed{Plugin: st.Plugin, Manual: manual, Dir: dest}, nil
}

// check refuses a name a shipped or an installed plugin holds, and
// returns where the plugin will live.
func (in Installer) check(ctx context.Context, src, name string) (string, error) {
	if sp, ok := in.Shipped(name); ok {
		return "", jarvisbot.Errorf(jarvisbot.ECONFLICT, "the plugin in %s is named %q, like the %s plugin that ships with jarvisbot, and a local plugin never replaces a shipped one: give yours another name in its plugin.json (\"name\") and install it again, or install the shipped one with jarvisbot plugins install %s",
			visible.Text(src), name, sp.DisplayName(), name)
	}
	switch _, err := in.Store.InstalledPlugin(ctx, name); {
	case err == nil:
		return "", jarvisbot.Errorf(jarvisbot.ECONFLICT, "a plugin named %q is installed already: remove it first (jarvisbot plugins remove %s), then install the folder again", name, name)
	case jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND:
		return "", err
	}
	dest, _, err := in.Dir.Stat(name)
	return dest, err
}

// stage copies src into stage and reads the copy.
func (in Installer) stage(src, stage, dest, name string) (Staged, error) {
	if err := plugins.CopyFolder(src, stage); err != nil {
		return Staged{}, err
	}
	p, err := plugins.Load(stage)
	if err != nil {
		return Staged{}, err
	}
	if p.Manifest.Name != name {
		return Staged{}, jarvisbot.Errorf(jarvisbot.ECONFLICT, "%s changed while it was copied (its name is now %q): install it again", visible.Text(src), p.Manifest.Name)
	}
	list, err := readSkills(stage, p)
	if err != nil {
		return Staged{}, err
	}
	return Staged{Src: src, Dest: dest, Plugin: p, Skills: list}, nil
}

// settle writes the skills as the policy leaves them (unless trusted) and
// reads the manual the installed plugin will have.
func (in Installer) settle(stage string, st Staged) (*skills.Skill, error) {
	if !in.Trusted {
		for _, s := range st.Skills {
			if err := os.WriteFile(filepath.Join(stage, filepath.FromSlash(s.Rel)), s.Skill.Render(), 0o600); err != nil {
				return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "write %s of the plugin: %w", s.Rel, err)
			}
		}
	}
	return in.Manual(stage, st.Plugin)
}

// place moves the staged copy into place, over a copy an earlier install
// of the same name left after it was removed.
func (in Installer) place(stage, dest, name string) error {
	_, kind, err := in.Dir.Stat(name)
	if err != nil {
		return err
	}
	if kind != namedir.Missing {
		if _, err := in.Dir.Remove(name); err != nil {
			return err
		}
	}
	if err := os.Rename(stage, dest); err != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "install the plugin at %s: %w", dest, err)
	}
	return nil
}

// record keeps where the plugin came from and the owner's decision on its
// skills (S6), shown by plugins show and skills show.
func (in Installer) record(ctx context.Context, src, name string, list []Skill) error {
	var dropped []string
	for _, s := range list {
		for _, d := range s.Skill.Dropped {
			dropped = append(dropped, s.Rel+": "+d.Field+": "+d.Reason)
		}
	}
	source := "the plugin folder " + src + ", not trusted: the fields of its skills that would grant behaviour are ignored"
	if in.Trusted {
		source = "the plugin folder " + src + ", trusted by you (--trusted): every field of its skills is honoured"
		dropped = nil
	}
	return in.Store.RecordSkill(ctx, store.SkillRecord{Skill: "skill:" + name, Origin: store.SkillImported, Source: source, Dropped: dropped})
}

// readSkills reads every skill of the staged plugin, its manual first,
// under the import policy.
func readSkills(stage string, p *plugins.Plugin) ([]Skill, error) {
	names := slices.Clone(p.Skills)
	slices.SortStableFunc(names, func(a, b string) int {
		switch {
		case a == p.Manifest.Name:
			return -1
		case b == p.Manifest.Name:
			return 1
		}
		return strings.Compare(a, b)
	})
	var out []Skill
	for _, n := range names {
		rel := plugins.SkillsDir + "/" + n + "/" + plugins.SkillFile
		s, data, err := skills.ImportDir(filepath.Join(stage, plugins.SkillsDir, n))
		if err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.ErrorCode(err), "the plugin's %s: %w", rel, err)
		}
		ps := Skill{Rel: rel, Manual: n == p.Manifest.Name, Original: string(data), Skill: s}
		if ps.Manual {
			manualPolicy(s, rel, data)
		}
		out = append(out, ps)
	}
	return out, nil
}

// manualPolicy adjusts the import policy for a plugin's manual. Its folder
// makes it the plugin's manual, so metadata.jarvisbot.plugin takes nothing
// away. What it says it does is honoured: any kind is at most as free as an
// imported skill's (instructions), and a manual that uses its plugin's
// tools should join a turn, not take it over (S4).
func manualPolicy(s *skills.Skill, path string, data []byte) {
	s.Does = skills.KindTools
	if own, err := skills.Parse(path, data); err == nil && own.Does != "" {
		s.Does = own.Does
	}
	s.Dropped = slices.DeleteFunc(s.Dropped, func(d skills.Dropped) bool {
		f := strings.ToLower(d.Field)
		return f == "metadata."+skills.Namespace+"plugin" || f == "metadata."+skills.Namespace+"does"
	})
}
