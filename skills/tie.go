package skills

import (
	"slices"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/words"
)

// sameKindShare is how much of the smaller word list two manuals must
// share to be of one kind: Spotify's and YouTube Music's manuals list
// mostly the same words (music, song, playlist, album, ...), a calendar's
// and a task list's hardly any.
const sameKindShare = 0.5

// TiedManuals returns the plugins whose manuals tie at the top of a
// ranking (C5): the best match is a plugin's manual that enters the turn
// but does not lead by ManualLead (so LeadingManual finds none), and
// another manual within that margin enters too and is of the same kind,
// its author having listed mostly the same words. Only then may the
// owner's preference or last use pick one; a tie between manuals of
// different kinds ("tomorrow" for a calendar and a task list) stays
// unbroken. Nil when there is no such tie.
func TiedManuals(ms []Match) []string {
	if len(ms) < 2 || LeadingManual(ms) != "" {
		return nil
	}
	best := ms[0]
	if !entersAsManual(best) {
		return nil
	}
	out := []string{best.Skill.Plugin}
	var z words.Tokenizer
	bestWords := manualStems(&z, best.Skill)
	for _, m := range ms[1:] {
		if m.Score*ManualLead <= best.Score {
			break
		}
		if entersAsManual(m) && m.Skill.Plugin != best.Skill.Plugin && sameKind(bestWords, manualStems(&z, m.Skill)) {
			out = append(out, m.Skill.Plugin)
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

func entersAsManual(m Match) bool {
	return m.Skill.Plugin != "" && (m.Entry == EntryJoin || m.Entry == EntryTakeOver)
}

// manualStems is the set of stems of the words a manual's author listed.
func manualStems(z *words.Tokenizer, s *Skill) map[string]bool {
	set := map[string]bool{}
	for _, list := range [][]string{s.Words, s.WordsDE, s.Related} {
		for _, w := range list {
			for _, t := range z.Tokenize(w) {
				if words.Default().Class(t.Stem) != words.Stop {
					set[t.Stem] = true
				}
			}
		}
	}
	return set
}

func sameKind(a, b map[string]bool) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	shared := 0
	for w := range a {
		if b[w] {
			shared++
		}
	}
	return float64(shared) >= sameKindShare*float64(min(len(a), len(b)))
}

// ManualTie returns the plugin whose manual leads a ranking: the one that
// clearly leads (LeadingManual), or, when manuals of one kind tie
// (TiedManuals), the one the owner prefers or used last, with the
// tie. The runtime and route decide a turn's manuals with it alike.
func ManualTie(ms []Match, prefer *catalog.Preferences) (string, *catalog.Tie) {
	if lead := LeadingManual(ms); lead != "" {
		return lead, nil
	}
	tied := TiedManuals(ms)
	if len(tied) < 2 {
		return "", nil
	}
	list := make([]catalog.Contender, len(tied))
	for i, plugin := range tied {
		list[i] = catalog.Contender{Name: plugin, Plugin: plugin}
	}
	tie, ok := prefer.Break(list)
	if !ok {
		return "", nil
	}
	return tie.Winner, &tie
}

// InTie reports whether m is the manual of a plugin in tie.
func InTie(m Match, tie *catalog.Tie) bool {
	return tie != nil && m.Skill.Plugin != "" && (m.Skill.Plugin == tie.Winner || slices.Contains(tie.Over, m.Skill.Plugin))
}

// LostTie reports whether m is the manual of a plugin that lost tie: it
// does not enter the turn.
func LostTie(m Match, tie *catalog.Tie) bool {
	return InTie(m, tie) && m.Skill.Plugin != tie.Winner
}
