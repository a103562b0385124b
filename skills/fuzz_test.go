package skills_test

import (
	"reflect"
	"testing"

	"github.com/jarvisbot/jarvisbot/skills"
)

// FuzzParse: the front-matter parser never panics on any input, and a
// skill it accepts (own or imported) re-parses from Render unchanged.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"---\nname: x\ndescription: d\n---\nbody\n",
		"---\nname: x\ndescription: d\nmetadata:\n  jarvisbot.words: [a, \"b, c\"]\n  jarvisbot.tier: safe\n  k: v\n---\n# H\n",
		"---\nname: &a x\ndescription: *a\nallowed-tools: Read Bash(a b)\nargument-hint: [a, b]\n---\n",
		"---\nname: x\ndescription: \"\\0\\x01\\t\"\nmetadata:\n  \"---\": \"---\"\n---\n---\n",
		"---\n---\n",
		"---\nname: x\n",
		"\ufeff---\r\nname: x\r\ndescription: d\r\n---\r\n",
		ownManual,
		claudeSkill,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, read := range []func(string, []byte) (*skills.Skill, error){skills.Parse, skills.Import} {
			s, err := read("skills/x/SKILL.md", []byte(src))
			if err != nil {
				continue
			}
			out := s.Render()
			if len(out) > skills.MaxFileSize {
				continue // quoting can grow a file that was just under the limit
			}
			again, err := skills.Parse("skills/x/SKILL.md", out)
			if err != nil {
				t.Fatalf("rendered skill does not parse: %v\ninput:\n%q\nrendered:\n%q", err, src, out)
			}
			s.Dropped, again.Dropped = nil, nil
			s.Origin, again.Origin = 0, 0
			if !reflect.DeepEqual(s, again) {
				t.Fatalf("round trip changed the skill\ninput:\n%q\nrendered:\n%q\nbefore %#v\nafter  %#v", src, out, s, again)
			}
		}
	})
}
