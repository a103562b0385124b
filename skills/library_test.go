package skills

import (
	"os"
	"path"
	"slices"
	"testing"
)

// TestShippedGeneralSkillsS2: at least one general skill of each kind
// ships, and one carries a schedule for the scheduler.
func TestShippedGeneralSkillsS2(t *testing.T) {
	list, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[Kind]string{}
	scheduled := ""
	for _, s := range list {
		if s.Plugin != "" {
			t.Errorf("%s: a general skill names plugin %q", s.Name, s.Plugin)
		}
		if len(s.Words) == 0 || len(s.WordsDE) == 0 {
			t.Errorf("%s: words EN %d, DE %d", s.Name, len(s.Words), len(s.WordsDE))
		}
		kinds[s.Does] = s.Name
		if s.Schedule != "" {
			scheduled = s.Name + " at " + s.Schedule
		}
	}
	for _, k := range []Kind{KindInstructions, KindTools, KindBackground} {
		if kinds[k] == "" {
			t.Errorf("no shipped skill of kind %s", k)
		}
	}
	if scheduled == "" {
		t.Error("no shipped skill carries a schedule")
	}
	t.Logf("kinds %v; scheduled: %s", kinds, scheduled)
}

// BenchmarkNewRankerShipped indexes everything that ships, as a turn's
// ranker over the enabled skills is built.
func BenchmarkNewRankerShipped(b *testing.B) {
	list := shippedAll(b)
	b.ReportAllocs()
	for b.Loop() {
		NewRanker(list)
	}
}

// shippedAll is every store plugin's manual and the general skills.
func shippedAll(b *testing.B) []*Skill {
	b.Helper()
	list, err := Shipped()
	if err != nil {
		b.Fatal(err)
	}
	return append(list, shippedManuals(b)...)
}

// shippedManuals is every store plugin's manual, read from the store's
// folder: plugins reads its manuals through skills, so skills' tests
// cannot import plugins to do it.
func shippedManuals(tb testing.TB) []*Skill {
	tb.Helper()
	const store = "../plugins/shipped"
	entries, err := os.ReadDir(store)
	if err != nil {
		tb.Fatal(err)
	}
	var out []*Skill
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		all, err := LoadAll(os.DirFS(store), path.Join(e.Name(), "skills"))
		if err != nil {
			tb.Fatal(err)
		}
		i := slices.IndexFunc(all, func(s *Skill) bool { return s.Name == e.Name() })
		if i < 0 {
			tb.Fatalf("shipped plugin %s has no manual", e.Name())
		}
		m := all[i]
		if m.Plugin == "" {
			m.Plugin = e.Name() // as plugins.Manual does: the folder says whose manual it is
		}
		out = append(out, m)
	}
	return out
}

// BenchmarkSkillRankShipped ranks everything that ships: every store
// plugin's manual and the general skills.
func BenchmarkSkillRankShipped(b *testing.B) {
	list := shippedAll(b)
	r := NewRanker(list)
	msgs := []string{"Is Thursday evening still free for me?", "Raise a pull request with the signup patch", "Tell me a joke", "Was steht im Terminkalender?"}
	out := make([]Match, 0, len(list))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		out = r.Rank(msgs[i%len(msgs)], out[:0])
		i++
	}
	b.ReportMetric(float64(len(list)), "skills")
}

// BenchmarkRankerCacheShipped is a turn's ranker over what ships when the
// list reads as the last turn's: the index is reused.
func BenchmarkRankerCacheShipped(b *testing.B) {
	list := shippedAll(b)
	var c RankerCache
	c.Ranker(list)
	b.ReportAllocs()
	for b.Loop() {
		c.Ranker(list)
	}
}
