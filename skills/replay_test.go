package skills

import (
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/catalog/evalset"
	"github.com/jarvisbot/jarvisbot/internal/fixtures"
)

// entering are the skills a ranking lets into the turn.
func entering(ms []Match) map[string]Entry {
	out := map[string]Entry{}
	for _, m := range ms {
		if m.Entry == EntryTakeOver || m.Entry == EntryJoin {
			out[m.Skill.Name] = m.Entry
		}
	}
	return out
}

// TestReplaySkillLearning replays an owner's first requests for the
// shipped skills and later ones in the same words (testdata/replay/
// skill_pairs.jsonl), as TestReplayLearning in catalog does for the gate:
// each first request the scorer does not let its skill into is recovered
// to it (its words are learned, as a turn that asked for the skill by name
// and used it teaches), and the later requests are ranked before and
// after. Learning must raise recall to the 85% and bring no more
// skills into the hard negatives than before. Hard negatives (skill_negatives.jsonl
// and the gate's negatives.jsonl) that come to bring a skill may do so
// only on words learned for it, and never let it take the turn over.
func TestReplaySkillLearning(t *testing.T) {
	pairs, negatives, err := evalset.ReadReplayFiles(fixtures.ReplayPath(t, "skill_pairs.jsonl"), fixtures.ReplayPath(t, "skill_negatives.jsonl"), fixtures.ReplayPath(t, "negatives.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	list, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	r := &rankRouter{list: append(list, shippedManuals(t)...)}
	r.ranker = NewRanker(r.list)
	rep := evalset.Replay(r, pairs, negatives)
	s := rep.Summary()
	t.Logf("%d skill pairs, %d first requests missed and recovered; second requests: recall %.1f%% -> %.1f%%, exact %.1f%% -> %.1f%%; skills entering %d hard negatives: %d -> %d",
		s.Pairs, s.Recovered, s.RecallBefore, s.RecallAfter, s.ExactBefore, s.ExactAfter, s.Negatives, s.FalseOffersBefore, s.FalseOffersAfter)
	if rep.Recall[1] < rep.Recall[0] || rep.Exact[1] < rep.Exact[0] {
		t.Errorf("learning lowered recall or exact on the second requests")
	}
	if rep.Recall[1]*100 < 85*rep.Pairs {
		t.Errorf("recall after learning %.1f%%, want at least 85%%", s.RecallAfter)
	}
	if rep.FalseOffers[1] > rep.FalseOffers[0] {
		t.Errorf("learning raised the skills entering the hard negatives from %d to %d", rep.FalseOffers[0], rep.FalseOffers[1])
	}
	for _, b := range rep.Newly {
		for _, m := range r.ranker.Rank(b.Negative.Text, nil) {
			if m.Skill.Name != b.Target.Name {
				continue
			}
			if len(m.Learned) == 0 {
				t.Errorf("%q newly brings %s (%s) without a word learned for it", b.Negative.Text, m.Skill.Name, m.Entry)
			}
			if m.Entry == EntryTakeOver {
				t.Errorf("%q lets %s take the turn over on learned words %v", b.Negative.Text, m.Skill.Name, m.Learned)
			}
		}
	}
}

// rankRouter replays against the skill scorer: the skills that enter a
// turn.
type rankRouter struct {
	list    []*Skill
	learned map[string][]catalog.LearnedWord
	ranker  *Ranker
}

func (r *rankRouter) Brings(msg string) []evalset.Target {
	var out []evalset.Target
	for name := range entering(r.ranker.Rank(msg, nil)) {
		out = append(out, evalset.Target{Skill: true, Name: name})
	}
	return out
}

func (r *rankRouter) Learn(t evalset.Target, words []catalog.LearnedWord) {
	if !t.Skill {
		return
	}
	if r.learned == nil {
		r.learned = map[string][]catalog.LearnedWord{}
	}
	r.learned[t.Name] = words
	r.ranker = NewRanker(WithLearned(r.list, r.learned))
}
