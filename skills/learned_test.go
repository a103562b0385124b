package skills

import (
	"slices"
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog"
)

// TestScorerLearnsTheOwnersWordsC9S4: a skill learns the owner's words,
// and a message in them ranks it, explained as learned; on learned words
// alone an instruction-only skill joins, never takes the turn over, while
// its author's words still let it; a background skill stays offered by
// name; words learned for one skill bring no other; the skills of the
// list given are not changed.
func TestScorerLearnsTheOwnersWordsC9S4(t *testing.T) {
	set := rankSet()
	learned := map[string][]catalog.LearnedWord{
		"humanizer":       catalog.LearnableWords("Mach mein Bewerbungsschreiben für die Kanzlei weniger hölzern"),
		"nightly-backup":  catalog.LearnableWords("Kopier das Fotoalbum auf die Festplatte"),
		"google-calendar": catalog.LearnableWords("Wann ist Elternabend?"),
	}
	with := WithLearned(set, learned)
	if len(set[2].Learned) != 0 || len(with[2].Learned) == 0 {
		t.Fatalf("WithLearned changed the given skill or gave the copy nothing: %+v / %+v", set[2].Learned, with[2].Learned)
	}
	r := NewRanker(with)
	tests := []struct {
		msg     string
		want    string
		entry   Entry
		learned string
	}{
		{"Das Bewerbungsschreiben klingt hölzern", "humanizer", EntryJoin, "holzern"},
		{"Make my cover letter sound human, it is hölzern", "humanizer", EntryTakeOver, "holzern"},
		{"Ist das Fotoalbum schon auf der Festplatte?", "nightly-backup", EntryOffer, "fotoalbum"},
		{"Verschieb den Elternabend auf Donnerstag", "google-calendar", EntryJoin, "elternabend"},
	}
	for _, tt := range tests {
		ms := r.Rank(tt.msg, nil)
		if len(ms) == 0 || ms[0].Skill.Name != tt.want || ms[0].Entry != tt.entry || !slices.Contains(ms[0].Learned, tt.learned) {
			t.Errorf("%q: got %+v, want %s first with %s, learned %q", tt.msg, ms, tt.want, tt.entry, tt.learned)
		}
		for _, m := range ms[1:] {
			if len(m.Learned) > 0 {
				t.Errorf("%q: %s matched the words learned for another skill: %v", tt.msg, m.ID(), m.Learned)
			}
		}
	}
	before := NewRanker(set)
	if ms := before.Rank("Das Bewerbungsschreiben klingt hölzern", nil); len(ms) > 0 && ms[0].Entry != EntryNone {
		t.Errorf("before learning, the message already brings %s (%s): nothing to show", ms[0].ID(), ms[0].Entry)
	}
	// The cache gives the learned words of this turn's list, not of the
	// list it first indexed.
	var c RankerCache
	c.Ranker(set)
	if ms := c.Ranker(with).Rank("Das Bewerbungsschreiben klingt hölzern", nil); len(ms) == 0 || ms[0].Skill.Name != "humanizer" {
		t.Errorf("a cached index lost the learned words: %+v", ms)
	}
	if ms := c.Ranker(set).Rank("Das Bewerbungsschreiben klingt hölzern", nil); len(ms) > 0 && ms[0].Entry != EntryNone {
		t.Errorf("forgotten words still rank %s", ms[0].ID())
	}
}

// TestLearnedWordsDoNotCountInQuestionsOfKnowledgeC9: a message that asks
// for knowledge brings no skill on learned words, as the MCP gate offers
// no service on them; one that asks for a text in them still may.
func TestLearnedWordsDoNotCountInQuestionsOfKnowledgeC9(t *testing.T) {
	r := NewRanker(WithLearned(rankSet(), map[string][]catalog.LearnedWord{
		"humanizer": catalog.LearnableWords("Mach mein Bewerbungsschreiben weniger hölzern"),
	}))
	for _, tt := range []struct {
		msg   string
		enter bool
	}{
		{"Das Bewerbungsschreiben klingt hölzern", true},
		{"Warum klingt ein Bewerbungsschreiben oft hölzern?", false},
		{"Explain the history of the Bewerbungsschreiben", false},
		{"Schreib ein Gedicht über mein Bewerbungsschreiben", true},
	} {
		if entered := enters(r, tt.msg, "humanizer"); entered != tt.enter {
			t.Errorf("%q: humanizer entered %v, want %v", tt.msg, entered, tt.enter)
		}
	}
}

// TestLearnedWordAloneFollowsTheGatesRuleC9: a skill its own words would
// not bring enters on one learned word only as the gate offers a server
// on one: not when the word is said of a kind, and in a question only
// when it asks about a thing of the owner's. A message that is no
// question (a request, or the owner telling how a thing of theirs
// stands) may bring it, since a skill that joins costs its text only.
// A second learned word at another place lifts the question rule, never
// the rule of a kind.
func TestLearnedWordAloneFollowsTheGatesRuleC9(t *testing.T) {
	r := NewRanker(WithLearned(rankSet(), map[string][]catalog.LearnedWord{
		"google-calendar": append(catalog.LearnableWords("bouldering"), catalog.LearnableWords("Jonas")...),
	}))
	for _, tt := range []struct {
		msg   string
		enter bool
	}{
		{"Is the bouldering with Jonas on Friday?", true}, // a particular thing, two learned words
		{"Is bouldering still a thing?", false},           // a question about nothing of the owner's
		{"When is my bouldering?", true},                  // the owner's
		{"Bouldering is off this week", true},             // the owner telling how it stands
		{"What does a bouldering coach earn?", false},     // of a kind
		{"Does Jonas like bouldering?", true},             // two learned words
		{"Would Jonas like a bouldering course?", false},  // two, but one of a kind
		{"How hard is bouldering for beginners?", false},  // knowledge
	} {
		if entered := enters(r, tt.msg, "google-calendar"); entered != tt.enter {
			t.Errorf("%q: google-calendar entered %v, want %v", tt.msg, entered, tt.enter)
		}
	}
}

// enters reports whether the ranker lets skill into the turn for msg, in
// any way.
func enters(r *Ranker, msg, skill string) bool {
	for _, m := range r.Rank(msg, nil) {
		if m.Skill.Name == skill && m.Entry != EntryNone {
			return true
		}
	}
	return false
}
