package agents

import (
	"context"
	"slices"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/store"
)

// Learner keeps what the gate and the skill scorer learn (C9): the words
// of an owner's message for a server or skill they missed and the model
// recovered and used.
type Learner interface {
	Learn(ctx context.Context, kind store.LearnedKind, name string, words []catalog.LearnedWord) error
}

// learn teaches the gate after a turn that recovered a miss: for each
// server whose tools joined on the model's request and one of which then
// ran (not denied, not failed), the message's content words. An app's or
// a scheduled run's words teach nothing unless the owner allowed it: the
// gate learns the owner's own vocabulary. A failure to learn costs the
// next turn a round trip, not this turn its answer.
func (r *Runtime) learn(ctx context.Context, st *turnState) {
	if r.Learner == nil || len(st.recovered) == 0 {
		return
	}
	if (st.in.App != "" || st.in.Schedule != "") && !r.LearnFromAll {
		return
	}
	st.mu.Lock()
	var used []string
	view := r.Catalog()
	for _, c := range st.res.Calls {
		if c.Outcome != "ok" && c.Outcome != "approved" {
			continue
		}
		cp, ok := view.Capability(c.Tool)
		if !ok || cp.Server == "" || !st.recovered[cp.Server] || slices.Contains(used, cp.Server) {
			continue
		}
		used = append(used, cp.Server)
	}
	st.mu.Unlock()
	if len(used) == 0 {
		return
	}
	words := catalog.LearnableWords(st.in.Text)
	if len(words) == 0 {
		return
	}
	for _, server := range used {
		if err := r.Learner.Learn(context.WithoutCancel(ctx), store.LearnedServer, server, words); err != nil {
			r.log().Warn("learning the words of a recovered turn; the gate may miss them again", "server", server, "err", err)
			continue
		}
		r.log().Info("the gate learned words from a recovered turn", "server", server, "words", len(words))
	}
}
