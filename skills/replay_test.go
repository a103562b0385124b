package skills

import (
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog"
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
	type pair struct{ Skill, First, Second string }
	type negative struct{ Text string }
	pairs := fixtures.Replay[pair](t, "skill_pairs.jsonl")
	negatives := append(fixtures.Replay[negative](t, "skill_negatives.jsonl"), fixtures.Replay[negative](t, "negatives.jsonl")...)
	list, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	list = append(list, shippedManuals(t)...)
	r := NewRanker(list)
	score := func() (recall, exact int) {
		for _, p := range pairs {
			got := entering(r.Rank(p.Second, nil))
			if _, ok := got[p.Skill]; ok {
				recall++
				if len(got) == 1 {
					exact++
				}
			}
		}
		return recall, exact
	}
	falseEntries := func() int {
		n := 0
		for _, neg := range negatives {
			n += len(entering(r.Rank(neg.Text, nil)))
		}
		return n
	}
	before := map[string]map[string]Entry{}
	for _, neg := range negatives {
		before[neg.Text] = entering(r.Rank(neg.Text, nil))
	}
	beforeRecall, beforeExact := score()
	beforeFalse := falseEntries()
	missed := 0
	learned := map[string][]catalog.LearnedWord{}
	for _, p := range pairs {
		if _, ok := entering(r.Rank(p.First, nil))[p.Skill]; ok {
			continue // nothing to recover, nothing learned
		}
		missed++
		learned[p.Skill] = mergeLearned(learned[p.Skill], catalog.LearnableWords(p.First))
		r = NewRanker(WithLearned(list, learned))
	}
	afterRecall, afterExact := score()
	afterFalse := falseEntries()
	pct := func(n int) float64 { return 100 * float64(n) / float64(len(pairs)) }
	t.Logf("%d skill pairs, %d first requests missed and recovered; second requests: recall %.1f%% -> %.1f%%, exact %.1f%% -> %.1f%%; skills entering %d hard negatives: %d -> %d",
		len(pairs), missed, pct(beforeRecall), pct(afterRecall), pct(beforeExact), pct(afterExact), len(negatives), beforeFalse, afterFalse)
	if afterRecall < beforeRecall || afterExact < beforeExact {
		t.Errorf("learning lowered recall or exact on the second requests")
	}
	if afterRecall*100 < 85*len(pairs) {
		t.Errorf("recall after learning %.1f%%, want at least 85%%", pct(afterRecall))
	}
	if afterFalse > beforeFalse {
		t.Errorf("learning raised the skills entering the hard negatives from %d to %d", beforeFalse, afterFalse)
	}
	for _, neg := range negatives {
		for _, m := range r.Rank(neg.Text, nil) {
			if m.Entry != EntryTakeOver && m.Entry != EntryJoin || before[neg.Text][m.Skill.Name] == m.Entry {
				continue
			}
			if len(m.Learned) == 0 {
				t.Errorf("%q newly brings %s (%s) without a word learned for it", neg.Text, m.Skill.Name, m.Entry)
			}
			if m.Entry == EntryTakeOver {
				t.Errorf("%q lets %s take the turn over on learned words %v", neg.Text, m.Skill.Name, m.Learned)
			}
		}
	}
}

// mergeLearned adds words to a skill's learned list, a word known already
// counting another turn, as the store does.
func mergeLearned(have, add []catalog.LearnedWord) []catalog.LearnedWord {
	for _, w := range add {
		found := false
		for i := range have {
			if have[i].Stem == w.Stem {
				have[i].Turns++
				found = true
			}
		}
		if !found {
			have = append(have, w)
		}
	}
	return have
}
