package skills

import (
	"strings"

	"github.com/jarvisbot/jarvisbot/internal/lexrank"
)

// Entry says how a matched skill may enter a turn (S4).
type Entry string

// The entries, from strongest to none.
const (
	EntryTakeOver Entry = "take-over" // instruction-only: may take the turn by itself
	EntryJoin     Entry = "join"      // uses tools: joins while the model can still decline it
	EntryOffer    Entry = "offer"     // background or owner-only: offered by name, never fires by itself
	EntryNone     Entry = "none"      // matched too weakly to enter
)

// Field weights of the scorer (S3). The author's trigger words say most;
// the paraphrase words they list come next; the body is a weak field, so a
// manual that mentions "calendar" once in passing does not win a calendar
// question over the calendar manual.
const (
	weightName = 3
	// phraseWordShare is what one word of a multi-word name or trigger
	// phrase counts, as a share of the whole phrase's weight.
	phraseWordShare   = 0.25
	weightWords       = 4
	weightRelated     = 2
	weightDescription = 1.5
	weightHeadings    = 1
	weightBody        = 0.3
	// weightLearned is what a word learned from the owner's turns counts
	// (C9): as much as a trigger word the author listed, since the owner's
	// use showed it means the skill (learned.go).
	weightLearned = weightWords
)

// EnterAt is the score from which a matched skill enters a turn. Below it
// a match is reported (entry "none") but does not change the turn.
const EnterAt = 2.0

// paraphraseCap is the most that the thesaurus's synonyms and near words
// add to a skill for one message: below EnterAt, so a paraphrase supports
// the skill's own words ("free on Friday afternoon") but never makes a
// skill enter alone ("print" is a sense of "publish", printing is not
// publishing a website).
const paraphraseCap = 0.75 * EnterAt

// Match is one ranked skill.
type Match struct {
	Skill *Skill
	Score float64
	Entry Entry
	// Weak is set when the match rests on one everyday word of the
	// message ("file", "event"): when the skill's author listed that word
	// it is enough for the skill to enter, not for a manual to bring its
	// plugin's servers (LeadingManual); otherwise the skill does not enter.
	Weak bool
	// Words is how many distinct words of the message matched it.
	Words int
	// Learned are the skill's learned words the message says, as the
	// owner wrote them (learned.go): part of Score, and what `route`
	// explains as learned.
	Learned []string
}

// ID returns the skill's capability id.
func (m Match) ID() string { return "skill:" + m.Skill.Name }

// Ranker ranks a fixed set of enabled skills against messages with no
// model call. It is immutable and safe for concurrent use; build a new one
// when skills are switched, installed or their plugin (dis)connects.
type Ranker struct {
	skills []*Skill
	ix     *lexrank.Index
	// learned indexes the skills' learned words apart from their own
	// (learned.go); nil when none has any.
	learned *lexrank.Index
}

// NewRanker indexes the skills' own words.
func NewRanker(list []*Skill) *Ranker {
	docs := make([]lexrank.Doc, len(list))
	for i, s := range list {
		trig := append(append([]string{}, s.Words...), s.WordsDE...)
		fields := listFields(nil, []string{strings.ReplaceAll(s.Name, "-", " ")}, weightName)
		listed := len(fields)
		fields = listFields(fields, trig, weightWords)
		fields = listFields(fields, s.Related, weightRelated)
		// The single words the author listed, trigger or related, are
		// what the skill is about: one of them alone is a real match,
		// everyday or not ("Mails", "tonight"), unlike a word of its
		// prose ("time" of "time entries").
		for k := listed; k < len(fields); k++ {
			fields[k].Trigger = fields[k].Phrases == nil
		}
		// The author's own words also reach the skill through the words
		// a person uses in their place (S3, issue 15); the body's passing
		// words do not.
		for k := range fields {
			fields[k].Paraphrase = true
		}
		docs[i] = lexrank.Doc{Names: []string{s.Name, s.Plugin}, ParaphraseCap: paraphraseCap, Fields: append(fields,
			lexrank.Field{Text: s.Description + " \n " + s.WhenToUse, Weight: weightDescription, Paraphrase: true},
			lexrank.Field{Text: strings.Join(s.Headings, " \n "), Weight: weightHeadings},
			lexrank.Field{Text: s.Body, Weight: weightBody},
		)}
	}
	return &Ranker{skills: list, ix: lexrank.New(docs), learned: learnedIndex(list)}
}

// listFields indexes a list of words and phrases the author wrote (a
// name, trigger words, related words) with weight w. A single word counts
// in full. A phrase counts in full when the message says the whole phrase;
// one word of it is only a hint (phraseWordShare), as in the MCP gate:
// "music" of "YouTube Music" belongs to every skill about music, the whole
// name to one.
func listFields(out []lexrank.Field, list []string, w float64) []lexrank.Field {
	var single, multi []string
	for _, item := range list {
		if strings.ContainsAny(strings.TrimSpace(item), " -") {
			multi = append(multi, item)
		} else {
			single = append(single, item)
		}
	}
	if len(single) > 0 {
		out = append(out, lexrank.Field{Text: strings.Join(single, " \n "), Weight: w})
	}
	if len(multi) > 0 {
		out = append(out, lexrank.Field{Text: strings.Join(multi, " \n "), Weight: w * phraseWordShare, Phrases: multi, PhraseWeight: w})
	}
	return out
}

// Rank returns every skill that matched msg, best first, with how it may
// enter the turn.
func (r *Ranker) Rank(msg string, out []Match) []Match {
	var hits [16]lexrank.Hit
	own := r.ix.Rank(msg, hits[:0])
	if r.learned != nil {
		return r.withLearned(msg, own, out)
	}
	for _, h := range own {
		out = append(out, r.match(h))
	}
	return out
}

// match is the ranked skill of one hit.
func (r *Ranker) match(h lexrank.Hit) Match {
	s := r.skills[h.Doc]
	m := Match{Skill: s, Score: h.Score, Entry: EntryFor(s, h.Score), Weak: h.Matched < 2 && h.Strong == 0, Words: int(h.Matched)}
	if m.Weak && h.Listed == 0 {
		// One everyday word of the skill's prose that its author
		// did not list ("time" of a time tracker's "time entries"
		// in "17 times 23") is no reason for it to enter at all.
		m.Entry = EntryNone
	}
	return m
}

// EntryFor decides how a skill with a given score may enter (S4): by what
// the skill does, never by what it claims.
func EntryFor(s *Skill, score float64) Entry {
	switch {
	case score < EnterAt:
		return EntryNone
	case s.DisableModelInvocation || s.Does == KindBackground:
		return EntryOffer
	case s.Does == KindTools || s.Plugin != "" || len(s.AllowedTools) > 0:
		return EntryJoin
	}
	return EntryTakeOver
}

// Spoken sets the entries of a ranking for a message the owner spoke (a
// transcribed voice note, V1): only a voice-marked skill (S1) may take
// such a turn over, since a misheard word must not hand the turn to a
// skill that never asked to be started by voice; any other skill that
// would take over joins instead, so the model can still decline it.
// Joining and offered skills stay as they are for text. It changes ms in
// place and returns it.
func Spoken(ms []Match) []Match {
	for i := range ms {
		if ms[i].Entry == EntryTakeOver && !ms[i].Skill.Voice {
			ms[i].Entry = EntryJoin
		}
	}
	return ms
}

// ManualLead is how far the best match must lead the next one for its
// plugin's servers to come with it: a tie between two manuals ("What's the
// weather tomorrow?" touches calendar and tasks alike) brings neither.
const ManualLead = 1.5

// LeadingManual returns the plugin whose manual clearly leads a ranking
// and enters the turn, or "": the turn offers that plugin's servers even
// when the message names none of their words (catalog.Plan.Turn). As in
// the MCP gate, one everyday word is not enough: "Which event changed
// history?" may touch the calendar manual, but brings no calendar tools.
func LeadingManual(ms []Match) string {
	if len(ms) == 0 {
		return ""
	}
	best := ms[0]
	if best.Skill.Plugin == "" || (best.Entry != EntryJoin && best.Entry != EntryTakeOver) || best.Weak {
		return ""
	}
	if len(ms) > 1 && best.Score < ManualLead*ms[1].Score {
		return ""
	}
	return best.Skill.Plugin
}
