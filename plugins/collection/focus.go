package collection

import (
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot/internal/words"
	"github.com/jarvisbot/jarvisbot/skills"
)

// How a description names plugins of the store (C6), installed or not:
// it is how an agent's focus reaches a plugin before the owner installs
// it. A description that names plugins by name ("reviews pull requests in
// my GitHub repos", "sends me Telegram messages") has those, and not the
// others its words also touch (Slack and Gmail carry messages too). One
// that names none has the plugins whose manual the skill scorer (S3)
// clearly matches on at least two of its words, each scoring at least
// namedShare of the best: "searches the web for me" has the web search
// plugins, "a friendly assistant" nothing.
const (
	namedShare = 0.5
	// namedAt is the least score of a plugin the description does not
	// name by name: a manual that would enter a turn twice over.
	namedAt = 2 * skills.EnterAt
)

// Named returns the plugins a description names by name, and, when it
// names none, those it names by what they do.
func (c Collection) Named(text string) (byName, byWords []string) {
	manuals := c.Manuals()
	list := make([]*skills.Skill, 0, len(manuals))
	for _, m := range manuals {
		list = append(list, m)
	}
	// The map's order must not decide a tie.
	slices.SortFunc(list, func(a, b *skills.Skill) int { return strings.Compare(a.Plugin, b.Plugin) })
	ms := skills.NewRanker(list).Rank(text, nil)
	var z words.Tokenizer
	toks := slices.Clone(z.Tokenize(text))
	best := 0.0
	for _, m := range ms {
		p := m.Skill.Plugin
		if p == "" || m.Score < skills.EnterAt {
			continue
		}
		if c.namedIn(&z, toks, p) {
			byName = append(byName, p)
			continue
		}
		if m.Weak || m.Words < 2 || m.Score < namedAt || (m.Entry != skills.EntryJoin && m.Entry != skills.EntryTakeOver) {
			continue
		}
		if best == 0 {
			best = m.Score
		}
		if m.Score >= namedShare*best {
			byWords = append(byWords, p)
		}
	}
	if len(byName) > 0 {
		byWords = nil
	}
	slices.Sort(byName)
	slices.Sort(byWords)
	return slices.Compact(byName), slices.Compact(byWords)
}

// namedIn reports whether the text names the plugin: its name or display
// name written out. A name that is also an everyday word ("Box", "Make",
// "Slack") counts only written as a name, with a capital, and not as the
// text's first word, where every word has one.
func (c Collection) namedIn(z *words.Tokenizer, text []words.Token, plugin string) bool {
	p, ok := c[plugin]
	if !ok {
		return false
	}
	lex := words.Default()
	for _, name := range []string{p.Plugin.Manifest.Name, strings.ReplaceAll(p.Plugin.Manifest.Name, "-", " "), p.Plugin.Ext.DisplayName} {
		name := slices.Clone(z.Tokenize(name))
		if len(name) == 0 {
			continue
		}
		for i := 0; i+len(name) <= len(text); i++ {
			same := true
			for j := range name {
				if text[i+j].Fold != name[j].Fold {
					same = false
					break
				}
			}
			if !same {
				continue
			}
			if len(name) > 1 || lex.Distinctive(name[0].Stem) || (text[i].Upper && i > 0) {
				return true
			}
		}
	}
	return false
}
