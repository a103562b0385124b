package skills

import (
	"testing"
	"testing/fstest"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/plugins"
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

// TestManualS2 reads a plugin's manual and refuses one that claims another
// plugin.
func TestManualS2(t *testing.T) {
	manifest := `{"$schema":"https://agent-plugins.org/schemas/1.0.0/plugin.schema.json","name":"acme","version":"1.0.0","description":"Acme."}`
	good := "---\nname: acme\ndescription: Use Acme.\nmetadata:\n  jarvisbot.words: acme\n---\nRead first.\n"
	bad := "---\nname: acme\ndescription: Use Acme.\nmetadata:\n  jarvisbot.plugin: github\n---\nRead first.\n"
	for _, tt := range []struct {
		manual string
		code   jarvisbot.Code
	}{{good, ""}, {bad, jarvisbot.EINVALID}, {"", jarvisbot.ENOTFOUND}} {
		fsys := fstest.MapFS{"acme/plugin.json": {Data: []byte(manifest)}}
		if tt.manual != "" {
			fsys["acme/skills/acme/SKILL.md"] = &fstest.MapFile{Data: []byte(tt.manual)}
		}
		p, err := plugins.LoadFS(fsys, "acme")
		if err != nil {
			t.Fatal(err)
		}
		m, err := Manual(fsys, p)
		if got := jarvisbot.ErrorCode(err); got != tt.code && !(tt.code == "" && err == nil) {
			t.Errorf("manual %q: error %v, want code %q", tt.manual, err, tt.code)
		}
		if tt.code == "" && (m == nil || m.Plugin != "acme") {
			t.Errorf("manual: %+v", m)
		}
	}
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
	store, err := plugins.Shipped()
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range store {
		m, err := Manual(plugins.ShippedFS(), p)
		if err != nil {
			b.Fatal(err)
		}
		list = append(list, m)
	}
	return list
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
