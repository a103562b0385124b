package skills

import "testing"

// TestRankerCacheReusesOnlyTheSameTextsS3: a list whose indexed texts are
// the same (read afresh, other pointers) reuses the index and hands out
// the new skills; a change of any indexed text, or of the list, indexes
// again; what it ranks is what a new ranker ranks.
func TestRankerCacheReusesOnlyTheSameTextsS3(t *testing.T) {
	mk := func(body string) []*Skill {
		return []*Skill{
			{Name: "tunes", Plugin: "tunes", Does: KindTools, Description: "Play songs, albums and playlists.", Words: []string{"song", "album", "playlist"}, Body: body},
			{Name: "humanizer", Does: KindInstructions, Description: "Rewrite text so it sounds like a person wrote it.", Words: []string{"humanize"}},
		}
	}
	var c RankerCache
	first := c.Ranker(mk("Use the tools."))
	again := mk("Use the tools.")
	second := c.Ranker(again)
	if second.ix != first.ix {
		t.Error("the same texts were indexed again")
	}
	if second.skills[0] != again[0] {
		t.Error("the reused ranker hands out the last turn's skills")
	}
	for _, changed := range [][]*Skill{mk("Use the tools, then say what played."), mk("Use the tools.")[:1]} {
		if r := c.Ranker(changed); r.ix == first.ix {
			t.Errorf("a changed list (%d skills) reused the old index", len(changed))
		}
	}
	msg := "play the album with that song"
	got, want := second.Rank(msg, nil), NewRanker(again).Rank(msg, nil)
	if len(got) != len(want) {
		t.Fatalf("cached ranker: %d matches, new ranker %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Skill != want[i].Skill || got[i].Score != want[i].Score || got[i].Entry != want[i].Entry {
			t.Errorf("match %d: cached %+v, new %+v", i, got[i], want[i])
		}
	}
}
