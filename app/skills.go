package app

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// The skill use cases (S1-S7): what `jarvisbot skills` and the dashboard's
// Skills tab both do. Skill files that cannot be read are warnings, given
// back with each result (also with an error), for the door to show.

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

// gatherSkills lists every skill agent could use, enabled or not.
func (in *Installation) gatherSkills(ctx context.Context, agent string) ([]skills.Available, Warnings, error) {
	var warn bytes.Buffer
	on := map[string]bool{}
	if err := collection.AddInstalled(ctx, in.DB, on); err != nil {
		return nil, nil, err
	}
	sc, err := SkillScope(in.Config, agent, on, &warn)
	if err != nil {
		return nil, warningsOf(&warn), err
	}
	all, err := skills.Gather(ctx, in.DB, sc, &warn)
	return all, warningsOf(&warn), err
}

// findSkill is the skill named name ("NAME" or "skill:NAME") that agent
// could use.
func (in *Installation) findSkill(ctx context.Context, agent, name string) (skills.Available, Warnings, error) {
	name = strings.TrimPrefix(name, "skill:")
	all, warn, err := in.gatherSkills(ctx, agent)
	if err != nil {
		return skills.Available{}, warn, err
	}
	for _, e := range all {
		if e.Skill.Name == name {
			return e, warn, nil
		}
	}
	return skills.Available{}, warn, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no skill named %q (see jarvisbot skills list)", name)
}

// SkillList is every skill an agent could use, on or off.
type SkillList struct {
	Skills []skills.Available
	// Hidden is how many manuals of store plugins that are not installed
	// are left out of Skills: the Plugins list offers those.
	Hidden   int
	Warnings Warnings
}

// SkillRow is one skill as `skills list --json` gives it (a documented
// shape: keep its fields and names).
type SkillRow struct {
	ID       string  `json:"id"`
	Plugin   *string `json:"plugin"`
	Source   string  `json:"source"`
	Does     string  `json:"does"`
	Enabled  bool    `json:"enabled"`
	State    string  `json:"state"`
	Schedule string  `json:"schedule,omitempty"`
	Voice    bool    `json:"voice,omitempty"`
}

// Rows are the listed skills as rows, in order; never nil.
func (l SkillList) Rows() []SkillRow {
	rows := []SkillRow{}
	for _, e := range l.Skills {
		r := SkillRow{ID: "skill:" + e.Skill.Name, Source: string(e.Source), Does: string(e.Skill.Does), Enabled: e.On, State: e.State(), Schedule: e.Skill.Schedule, Voice: e.Skill.Voice}
		if e.Skill.Plugin != "" {
			p := e.Skill.Plugin
			r.Plugin = &p
		}
		rows = append(rows, r)
	}
	return rows
}

// ListSkills lists the skills agent could use (S1, S5).
func (in *Installation) ListSkills(ctx context.Context, agent string) (SkillList, error) {
	all, warn, err := in.gatherSkills(ctx, agent)
	l := SkillList{Warnings: warn}
	if err != nil {
		return l, err
	}
	for _, e := range all {
		if e.Source == skills.SourceManual && e.Why == skills.WhyNotInstalled {
			l.Hidden++
			continue
		}
		l.Skills = append(l.Skills, e)
	}
	return l, nil
}

// SkillShown is one skill with the record of where it came from.
type SkillShown struct {
	skills.Available
	// Record says where the owner's skill (or a manual that came with a
	// plugin folder of the owner's) was installed from and what was
	// ignored; nil for the others.
	Record *store.SkillRecord
	// Learned are the words learned for it from the owner's turns (C9),
	// the most taught first.
	Learned []store.LearnedWord
	// Zone is the owner's time zone, in which Text says when a word was
	// learned.
	Zone     *time.Location
	Warnings Warnings
}

// ShowSkill is the skill named name that agent could use (S2).
func (in *Installation) ShowSkill(ctx context.Context, agent, name string) (SkillShown, error) {
	e, warn, err := in.findSkill(ctx, agent, name)
	shown := SkillShown{Available: e, Zone: in.Config.Location(), Warnings: warn}
	if err != nil {
		return shown, err
	}
	rec, err := in.DB.SkillRecord(ctx, "skill:"+e.Skill.Name)
	switch {
	case err == nil && (e.Source == skills.SourceOwner || e.Source == skills.SourceManual):
		// A manual has a record when it came with a plugin folder of the
		// owner's: the record says whether the owner trusted it.
		shown.Record = &rec
	case err != nil && jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND:
		return shown, err
	}
	if shown.Learned, err = in.LearnedWords(ctx, store.LearnedSkill, e.Skill.Name); err != nil {
		return shown, err
	}
	return shown, nil
}

// Text is the skill as `skills show` prints it and the dashboard shows
// it: its state and origin, then its full text, control and invisible
// characters shown as escapes (X2).
func (s SkillShown) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "skill:%s  %s, %s, from %s\n", s.Skill.Name, s.State(), s.Skill.Does, s.Source)
	if s.Skill.Path != "" {
		fmt.Fprintf(&b, "file: %s\n", s.Skill.Path)
	}
	if rec := s.Record; rec != nil {
		fmt.Fprintf(&b, "%s from %s on %s\n", rec.Origin, visible.Text(rec.Source), rec.RecordedAt.Local().Format("2006-01-02"))
		if len(rec.Dropped) > 0 {
			fmt.Fprintln(&b, "Ignored when it was installed (these fields would have granted behaviour):")
			for _, d := range rec.Dropped {
				fmt.Fprintf(&b, "  - %s\n", visible.Text(d))
			}
		}
	}
	if text := LearnedText(s.Learned, cmp.Or(s.Zone, time.Local)); text != "" {
		fmt.Fprintln(&b, visible.Text(text))
	}
	fmt.Fprintf(&b, "\n%s", visible.Text(string(s.Skill.Render())))
	return b.String()
}

// SkillSwitched is a skill after the owner switched it (S5).
type SkillSwitched struct {
	Name string
	On   bool
	// WaitsFor is the plugin, not installed, whose manual was switched
	// on: it joins turns once that plugin is installed.
	WaitsFor string
	Warnings Warnings
}

// SwitchSkill switches the skill named name, as agent finds it, on or off.
func (in *Installation) SwitchSkill(ctx context.Context, agent, name string, on bool) (SkillSwitched, error) {
	e, warn, err := in.findSkill(ctx, agent, name)
	sw := SkillSwitched{Warnings: warn}
	if err != nil {
		return sw, err
	}
	if err := in.DB.SetSkillEnabled(ctx, "skill:"+e.Skill.Name, on); err != nil {
		return sw, err
	}
	sw.Name, sw.On = e.Skill.Name, on
	if on && e.Why == skills.WhyNotInstalled {
		sw.WaitsFor = e.Skill.Plugin
	}
	return sw, nil
}

// Note says what the switch did.
func (sw SkillSwitched) Note() string {
	word := "off"
	if sw.On {
		word = "on"
	}
	note := fmt.Sprintf("skill:%s is %s.", sw.Name, word)
	if sw.WaitsFor != "" {
		note += fmt.Sprintf("\nIt is the manual of %s, which is not installed: it joins turns once you run jarvisbot plugins install %s.", sw.WaitsFor, sw.WaitsFor)
	}
	return note
}

// SkillOffer is a skill read for installation and not installed yet (S6):
// what the owner reads in full before saying yes (X2).
type SkillOffer struct {
	// Source names where it was read, in the consent view and in the
	// record of the installed skill.
	Source   string
	Incoming skills.Incoming
	// Dest is where it would be installed.
	Dest string
}

// ReadSkill reads a SKILL.md written for any app from a skill folder, the
// file itself or a URL, for the owner to read before InstallSkill. A skill
// of that name installed already is refused here, before anything is
// shown.
func (in *Installation) ReadSkill(ctx context.Context, src string) (SkillOffer, error) {
	inc, err := skills.ImportFrom(ctx, nil, src)
	if err != nil {
		return SkillOffer{}, err
	}
	return in.offer(src, inc)
}

// ReadSkillUpload is ReadSkill for a file uploaded to the dashboard:
// fileName is the name the browser gave it, if any.
func (in *Installation) ReadSkillUpload(fileName string, data []byte) (SkillOffer, error) {
	src := "an upload to the dashboard"
	if fileName != "" {
		src = "the file " + fileName + " uploaded to the dashboard"
	}
	inc, err := skills.ImportUpload(fileName, data)
	if err != nil {
		return SkillOffer{}, err
	}
	return in.offer(src, inc)
}

func (in *Installation) offer(src string, inc skills.Incoming) (SkillOffer, error) {
	dest, err := skills.InstallPath(in.Config.DataDir, inc.Name)
	if err != nil {
		return SkillOffer{}, err
	}
	return SkillOffer{Source: src, Incoming: inc, Dest: dest}, nil
}

// View is the consent view of the offer, the CLI's and the dashboard's:
// its full text, the fields that will be ignored, and how it may enter
// turns.
func (o SkillOffer) View() string {
	var b strings.Builder
	fmt.Fprintf(&b, "The skill %q from %s, in full:\n\n", o.Incoming.Name, visible.Text(o.Source))
	b.WriteString(InFull(o.Incoming.Original))
	if len(o.Incoming.Dropped) > 0 {
		fmt.Fprintln(&b, "jarvisbot will ignore these fields (they would grant behaviour):")
		b.WriteString(DroppedList("", o.Incoming.Dropped))
	}
	fmt.Fprintf(&b, "It will %s.\n", skills.EntryText(o.Incoming.Skill))
	return b.String()
}

// SkillInstalled is a skill the owner installed, on.
type SkillInstalled struct{ Name string }

// InstallSkill installs a skill the owner has read and agreed to, on,
// with a record of where it came from and what was ignored.
func (in *Installation) InstallSkill(ctx context.Context, o SkillOffer) (SkillInstalled, error) {
	if err := skills.AddOwn(ctx, in.DB, in.Config.DataDir, o.Source, o.Incoming); err != nil {
		return SkillInstalled{}, err
	}
	return SkillInstalled{Name: o.Incoming.Name}, nil
}

// InstallSkillAsRead installs o only when its text is shown, the text the
// owner read: a file read again between the consent view and the yes
// must not have changed (X2).
func (in *Installation) InstallSkillAsRead(ctx context.Context, o SkillOffer, shown string) (SkillInstalled, error) {
	if o.Incoming.Original != shown {
		return SkillInstalled{}, jarvisbot.Errorf(jarvisbot.ECONFLICT, "the skill at %s is not the text you read (it changed since): nothing was installed; read it again and decide on what it says now", visible.Text(o.Source))
	}
	return in.InstallSkill(ctx, o)
}

func (r SkillInstalled) Note() string {
	return fmt.Sprintf("Installed skill:%s (on). Switch it off with: jarvisbot skills off %s", r.Name, r.Name)
}

// SkillPromoted is an agent's own skill made global (S7).
type SkillPromoted struct{ Name, Agent string }

// PromoteSkill makes agent's own skill name global, as a draft the owner
// switches on after reading it.
func (in *Installation) PromoteSkill(ctx context.Context, agent, name string) (SkillPromoted, error) {
	s, err := skills.Promote(ctx, in.DB, in.Config.DataDir, agent, name)
	if err != nil {
		return SkillPromoted{}, err
	}
	return SkillPromoted{Name: s.Name, Agent: agent}, nil
}

func (r SkillPromoted) Note() string {
	return fmt.Sprintf("Promoted skill:%s from agent %s to all of jarvisbot as a draft (off). Read it with jarvisbot skills show %s, then switch it on with jarvisbot skills on %s", r.Name, r.Agent, r.Name, r.Name)
}

// SkillRemoved is one of the owner's skills, removed.
type SkillRemoved struct {
	Name string
	// Link is set when the skill was a symbolic link in Dir, the owner's
	// skill folder: only the link went.
	Link     bool
	Dir      string
	Warnings Warnings
}

// RemoveSkill deletes one of the owner's skills. A shipped skill, a manual
// or an agent's own skill (as agent finds it) can only be switched off,
// and the error says so.
func (in *Installation) RemoveSkill(ctx context.Context, agent, name string) (SkillRemoved, error) {
	link, err := skills.RemoveOwn(ctx, in.DB, in.Config.DataDir, name)
	name = strings.TrimPrefix(name, "skill:")
	r := SkillRemoved{Name: name, Link: link, Dir: skills.OwnDir(in.Config.DataDir).Path()}
	if jarvisbot.ErrorCode(err) == jarvisbot.ENOTFOUND {
		e, warn, ferr := in.findSkill(ctx, agent, name)
		r.Warnings = warn
		if ferr == nil && e.Source != skills.SourceOwner {
			return r, jarvisbot.Errorf(jarvisbot.EINVALID, "skill:%s ships with jarvisbot (%s): switch it off instead (jarvisbot skills off %s)", name, e.Source, name)
		}
	}
	return r, err
}

func (r SkillRemoved) Note() string {
	if r.Link {
		return fmt.Sprintf("Removed skill:%s: it was a link in %s, and only the link is gone; what it led to is untouched.", r.Name, r.Dir)
	}
	return fmt.Sprintf("Removed skill:%s.", r.Name)
}
