package agents

import (
	"cmp"
	"context"
	"slices"

	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/skillbook"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// Learner keeps what the gate and the skill scorer learn (C9): the words
// of an owner's message for a server or skill they missed and the model
// recovered and used.
type Learner interface {
	// Learn keeps words for a server or skill, taught by a turn in chat.
	Learn(ctx context.Context, kind store.LearnedKind, name, chat string, words []catalog.LearnedWord) error
	// Ignored counts an offer that the named learned words (as the owner
	// wrote them) brought and the turn did not use; Used says one was
	// used (see Runtime.judge).
	Ignored(ctx context.Context, kind store.LearnedKind, name string, words []string) error
	Used(ctx context.Context, kind store.LearnedKind, name string, words []string) error
}

// learn teaches the gate and the skill scorer after a turn that recovered
// a miss: for each server whose tools joined on the model's request and
// one of which then ran (not denied, not failed), and for each skill the
// model asked for by name that the scorer had not brought and that the
// turn then used (skillUse), the message's content words. An app's or a
// scheduled run's words teach nothing unless the owner allowed it: they
// learn the owner's own vocabulary. A failure to learn costs the next turn
// a round trip, not this turn its answer.
func (r *Runtime) learn(ctx context.Context, st *turnState) {
	if r.Learner == nil || len(st.recovered) == 0 && len(st.askedSkills) == 0 {
		return
	}
	if (st.in.App != "" || st.in.Schedule != "") && !r.LearnFromAll {
		return
	}
	view := r.Catalog()
	st.mu.Lock()
	calls := slices.Clone(st.res.Calls)
	st.mu.Unlock()
	type taught struct {
		kind store.LearnedKind
		name string
	}
	var used []taught
	for server := range st.recovered {
		if serverUse(view, server, calls) == useOK {
			used = append(used, taught{store.LearnedServer, server})
		}
	}
	for _, name := range st.askedSkills {
		s := skillNamed(st.enabled, name)
		if s == nil || slices.ContainsFunc(st.entered, func(e entered) bool { return e.skill.Name == name }) ||
			slices.Contains(used, taught{store.LearnedSkill, name}) {
			continue // the scorer brought it: nothing was missed
		}
		if u := skillUse(view, s, calls); u == useOK || u == useUnknown {
			used = append(used, taught{store.LearnedSkill, name})
		}
	}
	if len(used) == 0 {
		return
	}
	words := catalog.LearnableWords(st.in.Text)
	if len(words) == 0 {
		return
	}
	slices.SortFunc(used, func(a, b taught) int { return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.name, b.name)) })
	for _, t := range used {
		if err := r.Learner.Learn(context.WithoutCancel(ctx), t.kind, t.name, st.in.Chat, words); err != nil {
			r.log().Warn("learning the words of a recovered turn; it may be missed again", "kind", string(t.kind), "name", t.name, "err", err)
			continue
		}
		r.log().Info("learned words from a recovered turn", "kind", string(t.kind), "name", t.name, "words", len(words))
	}
}

// learnedOffer is a server the gate offered on words it learned, with
// those words as the owner wrote them.
type learnedOffer struct {
	server string
	words  []string
}

// judge unlearns (C9): the learned words that brought a server or a skill
// into the turn count an ignored offer when the turn used none of its
// tools (serverUse, skillUse: useNone), and start over when it used one;
// a call that was denied or failed, or an instruction-only skill whose
// use no call shows, counts neither way. The store drops a word at its
// third ignored offer (store.MaxIgnored); each one weighs it less first
// (catalog.LearnedWord.Share). The same turns judge as teach: the owner's
// own, unless apps and schedules are allowed to teach.
func (r *Runtime) judge(ctx context.Context, st *turnState) {
	if r.Learner == nil || len(st.learnedOffers) == 0 && !slices.ContainsFunc(st.entered, func(e entered) bool { return len(e.learned) > 0 }) {
		return
	}
	if (st.in.App != "" || st.in.Schedule != "") && !r.LearnFromAll {
		return
	}
	view := r.Catalog()
	st.mu.Lock()
	calls := slices.Clone(st.res.Calls)
	st.mu.Unlock()
	ctx = context.WithoutCancel(ctx)
	count := func(kind store.LearnedKind, name string, words []string, u use) {
		var err error
		switch u {
		case useNone:
			err = r.Learner.Ignored(ctx, kind, name, words)
		case useOK:
			err = r.Learner.Used(ctx, kind, name, words)
		default:
			return
		}
		if err != nil {
			r.log().Warn("counting what came of an offer of learned words; they keep their weight", "kind", string(kind), "name", name, "err", err)
		}
	}
	for _, o := range st.learnedOffers {
		count(store.LearnedServer, o.server, o.words, serverUse(view, o.server, calls))
	}
	for _, e := range st.entered {
		if len(e.learned) > 0 {
			count(store.LearnedSkill, e.skill.Name, e.learned, skillUse(view, e.skill, calls))
		}
	}
}

// use is what a turn did with a server or skill it had.
type use int

const (
	// useUnknown: nothing the turn did shows it, an instruction-only
	// skill's text being followed or not.
	useUnknown use = iota
	// useNone: none of its tools was called.
	useNone
	// useCalled: one was called, and was denied or failed.
	useCalled
	// useOK: one ran (ok, or approved and run).
	useOK
)

// ran reports whether a call's outcome is a use: it ran, by its tier or
// after the owner's approval.
func ran(c CallRecord) bool { return c.Outcome == "ok" || c.Outcome == "approved" }

// serverUse is what the turn's calls did with a server's tools.
func serverUse(v *catalog.View, server string, calls []CallRecord) use {
	u := useNone
	for _, c := range calls {
		if cp, ok := v.Capability(c.Tool); ok && cp.Server == server {
			if ran(c) {
				return useOK
			}
			u = useCalled
		}
	}
	return u
}

// skillUse is what the turn's calls did with a skill whose instructions
// it had. A skill is used when the turn did what its instructions are
// for: a plugin's manual when a tool of that plugin ran, a skill that
// names its tools (allowed-tools) when one of those ran, any other skill
// that works with tools (or starts a job) when a tool other than the
// skills tool ran. An instruction-only skill shapes the answer, which no
// call shows: useUnknown. Asked for by name and followed by an answer, it
// counts as used when learning; entered by the scorer, it is never judged
// ignored.
func skillUse(v *catalog.View, s *skills.Skill, calls []CallRecord) use {
	if s.Plugin == "" && len(s.AllowedTools) == 0 && s.Does != skills.KindTools && s.Does != skills.KindBackground {
		return useUnknown
	}
	u := useNone
	for _, c := range calls {
		cp, ok := v.Capability(c.Tool)
		if !ok || !skillTool(v, s, cp) {
			continue
		}
		if ran(c) {
			return useOK
		}
		u = useCalled
	}
	return u
}

// skillTool reports whether a tool is one the skill's instructions are
// for (skillUse).
func skillTool(v *catalog.View, s *skills.Skill, cp *catalog.Capability) bool {
	switch {
	case s.Plugin != "":
		if cp.Server == s.Plugin {
			return true // a built-in plugin's own tool
		}
		srv, ok := v.Server(cp.Server)
		return ok && cp.Server != "" && srv.Plugin == s.Plugin
	case len(s.AllowedTools) > 0:
		return slices.ContainsFunc(s.AllowedTools, func(t string) bool { return t == cp.ID || t == cp.Name || t == llm.WireName(cp.ID) })
	}
	return cp.ID != skillbook.ID
}

// skillNamed is the enabled skill of that name, nil if none.
func skillNamed(list []*skills.Skill, name string) *skills.Skill {
	for _, s := range list {
		if s.Name == name {
			return s
		}
	}
	return nil
}
