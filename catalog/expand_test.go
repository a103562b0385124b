package catalog_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog"
)

// paraphraseCatalog has a carded diary, a carded product named like a
// weekday, two servers known by their tool names only, and a cookbook
// whose descriptions say what it does.
func paraphraseCatalog(t *testing.T) *catalog.View {
	t.Helper()
	c := catalog.New()
	add := adder(t, c)
	add(catalog.Server{ID: "diary", Title: "Diary", Card: []string{"diary", "appointment", "Friday", "weekend"}},
		catalog.SnapshotTool{Name: "list_entries"}, catalog.SnapshotTool{Name: "add_entry"})
	add(catalog.Server{ID: "monday", Title: "monday", Card: []string{"monday", "board", "pulse"}},
		catalog.SnapshotTool{Name: "get_boards"})
	add(catalog.Server{ID: "shops", Title: "Shops"},
		catalog.SnapshotTool{Name: "find_bakeries"}, catalog.SnapshotTool{Name: "find_pharmacies"})
	add(catalog.Server{ID: "browser", Title: "Browser"},
		catalog.SnapshotTool{Name: "take_screenshot"}, catalog.SnapshotTool{Name: "navigate_page"})
	add(catalog.Server{ID: "cookbook", Title: "Cookbook"},
		catalog.SnapshotTool{Name: "find_dish", Description: "Find a recipe by its name or an ingredient."},
		catalog.SnapshotTool{Name: "save_dish", Description: "Save a recipe with its ingredients and steps."})
	return c.View()
}

// TestGateParaphraseC5: the gate knows the words a person uses in place of
// a server's own (issue 15): a card's "Friday" is reached by "Freitag" at
// the card word's weight, its everyday "weekend" by "Wochenende" weakly, a
// tool's "bakeries" by "Bäckerei" (but "take" of a tool by no "took"); a
// synonym of a description's word ("formula" for "recipe") is weak
// evidence that never offers a server alone; a server's name is no
// weekday; small talk and arithmetic reach nothing.
func TestGateParaphraseC5(t *testing.T) {
	v := paraphraseCatalog(t)
	tests := []struct {
		name, msg string
		want      []string
	}{
		{"German weekday for a card's weekday", "Hab ich Freitag schon was vor?", []string{"diary"}},
		{"German for a card's everyday weekend", "Was steht am Wochenende an?", nil},
		{"an everyday word and a German weekday", "Hab ich am Wochenende oder Freitag Zeit?", []string{"diary"}},
		{"a product's name is not a weekday", "Was steht am Montag an?", nil},
		{"German for a tool's word", "Gibt es hier eine Bäckerei?", []string{"shops"}},
		{"a tool word is not inflected", "We took a long walk", nil},
		{"a synonym alone", "I need a formula for pancakes", nil},
		{"arithmetic", "What is 318 divided by 6?", nil},
		{"German arithmetic", "Wie viel ist sieben mal acht?", nil},
		{"small talk", "How are you today?", nil},
		{"German small talk", "Erzähl mir einen Witz", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := offered(v, tt.msg); !slices.Equal(got, tt.want) {
				t.Errorf("%q offered %v, want %v", tt.msg, got, tt.want)
			}
		})
	}
	// The synonym is evidence all the same, and says what it stands for.
	for msg, want := range map[string][]string{
		"Was steht am Wochenende an?":   {"diary", `"wochenende"`, "weekend"},
		"I need a formula for pancakes": {"cookbook", `"formula"`, "recipe"},
	} {
		for _, d := range v.Gate().Check(msg, nil) {
			if d.Server != want[0] {
				continue
			}
			if b := d.Because(); d.Score != 1 || !strings.Contains(b, want[1]) || !strings.Contains(b, want[2]) {
				t.Errorf("%q: %s scored %d: %s; want the paraphrase as weak evidence", msg, d.Server, d.Score, b)
			}
		}
	}
}

// TestGateParaphraseQuietC5: over the 17 servers of the extended catalog,
// small talk and arithmetic in English and German, with weekdays and parts
// of the day in them, offer no server.
func TestGateParaphraseQuietC5(t *testing.T) {
	v := loadSnapshot(t, "catalog-extended.json").View()
	for _, msg := range []string{
		"What is 17 plus 25?",
		"Wie viel ist 250 geteilt durch 7?",
		"Have a nice weekend!",
		"Schönen Abend noch!",
		"Good morning, how did you sleep?",
		"Guten Morgen, wie geht's?",
		"Tell me a story about a dragon",
		"Which is bigger, a whale or an elephant?",
	} {
		if got := offered(v, msg); len(got) != 0 {
			t.Errorf("%q offered %v", msg, got)
		}
	}
}
