package skills

import (
	"strings"
	"testing"
)

// TestReportChatSC1: a scheduled skill names where its report goes; an
// imported one cannot.
func TestReportChatSC1(t *testing.T) {
	src := "---\nname: brief\ndescription: A brief.\nmetadata:\n  jarvisbot.schedule: \"0 7 * * *\"\n  jarvisbot.chat: telegram:42\n---\nBody.\n"
	s, err := Parse("brief/SKILL.md", []byte(src))
	if err != nil || s.Chat != "telegram:42" || s.Schedule != "0 7 * * *" {
		t.Fatalf("%+v %v", s, err)
	}
	if again, err := Parse("brief/SKILL.md", s.Render()); err != nil || again.Chat != "telegram:42" {
		t.Errorf("render round trip: %+v %v", again, err)
	}
	if _, err := Parse("brief/SKILL.md", []byte(strings.Replace(src, "telegram:42", "my phone", 1))); err == nil || !strings.Contains(err.Error(), "PLATFORM:ID") {
		t.Errorf("bad chat: %v", err)
	}
	imp, err := Import("brief/SKILL.md", []byte(src))
	if err != nil || imp.Chat != "" || imp.Schedule != "" {
		t.Errorf("import kept %q %q (%v)", imp.Chat, imp.Schedule, err)
	}
}

// TestScheduledSkillNamesItsAgentA4: the owner's scheduled skill names the
// agent that runs it; a name that is none is a clear error; an imported
// skill cannot name one, and says why it was dropped.
func TestScheduledSkillNamesItsAgentA4(t *testing.T) {
	src := "---\nname: inbox-brief\ndescription: A brief of the inbox.\nmetadata:\n  jarvisbot.schedule: \"0 7 * * *\"\n  jarvisbot.agent: inbox\n---\nBody.\n"
	s, err := Parse("inbox-brief/SKILL.md", []byte(src))
	if err != nil || s.Agent != "inbox" {
		t.Fatalf("%+v %v", s, err)
	}
	if again, err := Parse("inbox-brief/SKILL.md", s.Render()); err != nil || again.Agent != "inbox" {
		t.Errorf("render round trip: %+v %v", again, err)
	}
	for _, bad := range []string{`""`, `"my inbox"`, `telegram:42`} {
		if _, err := Parse("inbox-brief/SKILL.md", []byte(strings.Replace(src, "jarvisbot.agent: inbox", "jarvisbot.agent: "+bad, 1))); err == nil || !strings.Contains(err.Error(), "agents list") {
			t.Errorf("agent %s: %v", bad, err)
		}
	}
	imp, err := Import("inbox-brief/SKILL.md", []byte(src))
	if err != nil || imp.Agent != "" {
		t.Fatalf("import kept the agent %q (%v)", imp.Agent, err)
	}
	var why string
	for _, d := range imp.Dropped {
		if d.Field == "metadata.jarvisbot.agent" {
			why = d.Reason
		}
	}
	if !strings.Contains(why, "who runs a scheduled run") {
		t.Errorf("the import says of the agent %q", why)
	}
}
