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
