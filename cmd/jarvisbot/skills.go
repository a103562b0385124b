package main

import (
	"context"
	"io"
	"sort"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/namedir"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// ownSkills is where the owner's skills live (X1).
func ownSkills(cfg config.Config) namedir.Dir { return skills.OwnDir(cfg.DataDir) }

// agentSkillsDir is where an agent keeps the skills it wrote (S7).
func agentSkillsDir(cfg config.Config, agent string) namedir.Dir {
	return skills.AgentDir(cfg.DataDir, agent)
}

// skillScope says which skills a turn may draw on; shop and general, when
// set, are the collection and the shipped general skills already loaded.
type skillScope struct {
	agent      string
	connected  map[string]bool
	connectAll bool
	shop       map[string]shipped
	general    []*skills.Skill
}

// scope is sc as the skills package takes it, with the plugin collection
// read when the caller has not read it.
func (sc skillScope) scope(cfg config.Config, warn io.Writer) (skills.Scope, error) {
	shop := sc.shop
	if shop == nil {
		var err error
		if shop, err = loadStore(cfg, warn); err != nil {
			return skills.Scope{}, err
		}
	}
	manuals := make(map[string]*skills.Skill, len(shop))
	for id, sp := range shop {
		manuals[id] = sp.manual
	}
	return skills.Scope{DataDir: cfg.DataDir, Agent: sc.agent, General: sc.general, Manuals: manuals, Connected: sc.connected, ConnectAll: sc.connectAll}, nil
}

// Former names, kept while the service and schedule commands call them.
func connectedPlugins(ctx context.Context, db store.Plugins, v *catalog.View) (map[string]bool, error) {
	return collection.Connected(ctx, db, v)
}
func installedPlugins(ctx context.Context, db store.Plugins, on map[string]bool) error {
	return collection.AddInstalled(ctx, db, on)
}

const sourceManual = skills.SourceManual

// skillEntry is skills.Available in the form the service's /skills uses.
type skillEntry struct {
	skill  *skills.Skill
	source skills.Source
	on     bool
	why    string
}

func (e skillEntry) state() string { return skills.Available{On: e.on, Why: e.why}.State() }

// gatherSkills lists every skill the scope's agent could draw on, with
// the precedence of skills.Gather.
func gatherSkills(ctx context.Context, cfg config.Config, sw store.SkillSwitches, sc skillScope, warn io.Writer) ([]skillEntry, error) {
	scope, err := sc.scope(cfg, warn)
	if err != nil {
		return nil, err
	}
	all, err := skills.Gather(ctx, sw, scope, warn)
	if err != nil {
		return nil, err
	}
	out := make([]skillEntry, len(all))
	for i, e := range all {
		out[i] = skillEntry{skill: e.Skill, source: e.Source, on: e.On, why: e.Why}
	}
	return out, nil
}

// enabledSkills returns the skills that are on for the scope (S2, S5, S7).
func enabledSkills(ctx context.Context, cfg config.Config, sw store.SkillSwitches, sc skillScope, warn io.Writer) ([]*skills.Skill, error) {
	scope, err := sc.scope(cfg, warn)
	if err != nil {
		return nil, err
	}
	return skills.Enabled(ctx, sw, scope, warn)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
