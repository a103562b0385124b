package route_test

import (
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/app/route"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/skills"
)

// TestManualNeedsMoreThanAnEverydayWordS3C5: a store manual that matches a
// message on one everyday word or common verb does not drag its plugin's
// servers into the turn, and neither does the gate; a request that says more (two words of
// the manual, or one that is not everyday) still brings them.
func TestManualNeedsMoreThanAnEverydayWordS3C5(t *testing.T) {
	c := catalog.New()
	err := c.SetServer(catalog.Server{ID: "cal", Title: "Calendar", Plugin: "calendar", Connected: true,
		Card: []string{"calendar", "event", "appointment", "Termin"}},
		[]catalog.SnapshotTool{{Name: "list_events"}, {Name: "create_event"}})
	if err != nil {
		t.Fatal(err)
	}
	err = c.SetServer(catalog.Server{ID: "drive", Title: "Cloud Drive", Plugin: "clouddrive", Connected: true,
		Card: []string{"drive", "file", "folder", "Datei"}},
		[]catalog.SnapshotTool{{Name: "search"}})
	if err != nil {
		t.Fatal(err)
	}
	manual := func(name string, words, de, related []string) *skills.Skill {
		return &skills.Skill{Name: name, Plugin: name, Does: skills.KindTools, Words: words, WordsDE: de, Related: related,
			Description: "Use the owner's " + name + ".", Body: "Read before you change anything.", Origin: skills.Own}
	}
	general := func(name, word, desc string) *skills.Skill {
		return &skills.Skill{Name: name, Does: skills.KindInstructions, Words: []string{word}, Description: desc, Origin: skills.Own}
	}
	p := route.Planner{
		Plan: c.View().Plan(catalog.Policy{Agent: "default"}),
		Ranker: skills.NewRanker([]*skills.Skill{
			manual("calendar", []string{"calendar", "event", "appointment"}, []string{"Termin", "Kalender"},
				[]string{"free", "busy", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "evening", "morning"}),
			manual("clouddrive", []string{"drive", "file", "folder", "upload", "scan"}, []string{"Datei", "Ordner"}, []string{"shared", "storage"}),
			// General skills, so that the manuals' words are as rare among
			// the skills as they are in a real installation.
			general("humanizer", "humanize", "Rewrite text so it sounds like a person wrote it."),
			general("note-taking", "notes", "Keep tidy notes in the wiki."),
			general("deep-research", "research", "Research a question thoroughly and cite sources."),
			general("translator", "translate", "Translate text between English and German."),
		}),
	}
	tests := []struct {
		msg  string
		want string // the server offered, "" for none
	}{
		{"Which event shaped the last century the most?", ""},
		{"My file cabinet at home is full", ""},
		{"Wie groß ist eine Datei normalerweise?", ""},
		{"Scan the horizon for ships", ""},
		{"Am I busy on Friday evening?", "cal"},
		{"Upload the scan to my shared storage", "drive"},
	}
	for _, tt := range tests {
		ex := p.Explain(tt.msg)
		var got []string
		for _, m := range ex.MCP {
			if m.Offered {
				got = append(got, m.Server)
			}
			if tt.want == "" && strings.Contains(m.Because, "manual") {
				t.Errorf("%q: %s: %s", tt.msg, m.Server, m.Because)
			}
		}
		if want := []string{tt.want}; tt.want == "" && len(got) > 0 || tt.want != "" && (len(got) != 1 || got[0] != want[0]) {
			t.Errorf("%q offered %v, want %q (skills %+v)", tt.msg, got, tt.want, ex.Skills)
		}
	}
}
