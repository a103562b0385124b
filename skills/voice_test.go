package skills

import (
	"strings"
	"testing"
)

// TestSpokenTurnTakeOverOnlyVoiceMarkedV1S1: in a turn the owner spoke,
// only a voice-marked skill may take the turn over; an instruction-only
// skill without the mark joins instead (the model may still decline it),
// and what joins or is offered for text stays as it is. A written message
// leaves every entry as EntryFor decides it.
func TestSpokenTurnTakeOverOnlyVoiceMarkedV1S1(t *testing.T) {
	marked := &Skill{Name: "shopping-list", Does: KindInstructions, Voice: true}
	unmarked := &Skill{Name: "humanizer", Does: KindInstructions}
	tools := &Skill{Name: "github", Plugin: "github", Does: KindTools, Voice: true}
	background := &Skill{Name: "nightly-backup", Does: KindBackground, Voice: true}
	tests := []struct {
		s     *Skill
		score float64
		want  Entry
	}{
		{marked, EnterAt, EntryTakeOver},
		{unmarked, EnterAt, EntryJoin},
		{tools, EnterAt, EntryJoin},
		{background, EnterAt, EntryOffer},
		{unmarked, EnterAt / 2, EntryNone},
	}
	for _, tt := range tests {
		ms := []Match{{Skill: tt.s, Score: tt.score, Entry: EntryFor(tt.s, tt.score)}}
		written := ms[0].Entry
		if got := Spoken(ms)[0].Entry; got != tt.want {
			t.Errorf("%s spoken: %s, want %s", tt.s.Name, got, tt.want)
		}
		if tt.s == unmarked && tt.score >= EnterAt && written != EntryTakeOver {
			t.Errorf("%s written: %s, want it to take over", tt.s.Name, written)
		}
	}
}

// TestSpokenRankingKeepsOrderV1: a ranking of a spoken message keeps its
// order and scores; only the entries change.
func TestSpokenRankingKeepsOrderV1(t *testing.T) {
	list := rankSet()
	voiced := *list[2] // humanizer, instruction-only
	voiced.Name, voiced.Voice = "humanizer-voiced", true
	r := NewRanker(append(list, &voiced))
	ms := r.Rank("Can you make this email sound human?", nil)
	spoken := Spoken(r.Rank("Can you make this email sound human?", nil))
	if len(ms) != len(spoken) {
		t.Fatalf("spoken ranking has %d matches, written %d", len(spoken), len(ms))
	}
	seen := map[string]Entry{}
	for i := range ms {
		if ms[i].Skill != spoken[i].Skill || ms[i].Score != spoken[i].Score {
			t.Errorf("match %d: %s %.2f spoken, %s %.2f written", i, spoken[i].ID(), spoken[i].Score, ms[i].ID(), ms[i].Score)
		}
		seen[spoken[i].Skill.Name] = spoken[i].Entry
	}
	if seen["humanizer"] != EntryJoin || seen["humanizer-voiced"] != EntryTakeOver {
		t.Errorf("spoken entries: %v, want humanizer to join and humanizer-voiced to take over", seen)
	}
}

// TestImportDropsVoiceMarkS6: an imported skill never keeps the voice
// mark, whichever way it is written; the owner sees it listed as dropped.
func TestImportDropsVoiceMarkS6(t *testing.T) {
	for _, meta := range []string{"  jarvisbot.voice: true\n", "  jarvisbot.voice: \"true\"\n", "  jarvisbot:\n    voice: true\n"} {
		src := "---\nname: dictate\ndescription: Takes dictation.\nmetadata:\n" + meta + "---\nWrite down what the owner says.\n"
		s, err := Import("x/dictate/SKILL.md", []byte(src))
		if err != nil {
			t.Fatalf("%q: %v", meta, err)
		}
		if s.Voice {
			t.Errorf("%q: the imported skill kept the voice mark", meta)
		}
		var dropped []string
		for _, d := range s.Dropped {
			dropped = append(dropped, d.Field)
		}
		if !strings.Contains(strings.Join(dropped, " "), "metadata.jarvisbot") {
			t.Errorf("%q: dropped %q, want the voice mark listed", meta, dropped)
		}
		if got := Spoken([]Match{{Skill: s, Score: EnterAt, Entry: EntryFor(s, EnterAt)}})[0].Entry; got == EntryTakeOver {
			t.Errorf("%q: an imported skill takes over a spoken turn", meta)
		}
	}
}
