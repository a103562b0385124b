package catalog_test

import (
	"slices"
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog"
)

// keepingCatalog holds servers added by hand, written for this test in the
// shape real servers send: one that keeps facts about its owner in a
// knowledge graph (its tools say entities, observations, relations), and
// servers whose words come near remembering without keeping facts: a to-do
// app with reminders ("Erinnerung"), a reasoning server of thoughts, and a
// notes app.
func keepingCatalog(t *testing.T) *catalog.View {
	t.Helper()
	c := catalog.New()
	add := adder(t, c)
	tool := described
	add(catalog.Server{ID: "kg", Title: "Graph Store",
		Instructions: "A persistent memory for the assistant: a knowledge graph of entities, their observations and the relations between them."},
		tool("add_entities", "Add entities to the knowledge graph, each with a type and observations."),
		tool("add_observations", "Add observations to existing entities in the knowledge graph."),
		tool("link_entities", "Create relations between entities, in active voice."),
		tool("find_entities", "Search the knowledge graph for entities by name, type or observation."))
	add(catalog.Server{ID: "chores", Title: "Chores", Card: []string{"task", "to-do", "reminder", "Aufgabe", "Erinnerung"}},
		tool("add_task", "Add a task with an optional reminder."), tool("list_tasks", "List open tasks."))
	add(catalog.Server{ID: "reasoner", Title: "Reasoner",
		Instructions: "Helps the model think step by step: each thought can revise an earlier thought."},
		tool("next_thought", "Record the next thought in a chain of thinking, with its number and whether another thought is needed."))
	return c.View()
}

// TestKeepingServerGetsOwnersFactsC5: asking the assistant to keep or
// recall a fact of the owner's, in English and German, reaches the server
// whose own words are of memory and knowledge (a verb of keeping and the
// owner's first person are two signals), and no other server; remembering
// and knowing as topics, the owner's own forgetting, and servers that only
// come near the words stay out (issue 15).
func TestKeepingServerGetsOwnersFactsC5(t *testing.T) {
	v := keepingCatalog(t)
	kg := []string{"kg"}
	checkOffered(t, v, []offer{
		{"Remember that my brother's birthday is on the 4th of May", kg},
		{"Please remember I'm allergic to peanuts", kg},
		{"Don't forget that I take my coffee black", kg},
		{"Note that my passport expires next spring", kg},
		{"Do you remember my gym locker code?", kg},
		{"What do you know about my neighbour Frieda?", kg},
		{"Merk dir bitte, dass meine Schwester Vegetarierin ist", kg},
		{"Vergiss nicht, dass ich dienstags Chorprobe habe", kg},
		{"Kannst du dir merken, dass mein Auto grau ist?", kg},
		{"Was weißt du über meine Nachbarin Frieda?", kg},
		// remembering and knowing as topics, the owner's own memory
		{"Do you remember the 90s?", nil},
		{"I forgot my umbrella on the train", nil},
		{"Ich habe meinen Schlüssel vergessen", nil},
		{"What do you know about black holes?", nil},
		{"Was weißt du über schwarze Löcher?", nil},
		{"I remember my first bike, it was red", nil},
		{"Let the neighbours know I'm away next week", nil},
		{"Explain how human memory works", nil},
		{"Ich merke, dass ich müde bin", nil},
	})
}

// TestKeepingServerExplainedC5: `route` says why the keeping server was
// offered: the verb and the owner's word, as one piece of evidence.
func TestKeepingServerExplainedC5(t *testing.T) {
	v := keepingCatalog(t)
	for _, d := range v.Gate().Check("Remember that I prefer aisle seats", nil) {
		if d.Server != "kg" {
			continue
		}
		if !d.Offered || !slices.ContainsFunc(d.Evidence(), func(e catalog.Evidence) bool { return e.Kind == catalog.EvFact }) {
			t.Errorf("kg: offered %v, because %q; want an owner's fact", d.Offered, d.Because())
		}
	}
}

// TestKeepingServerOfPublishedCatalogC5: over the 17 published servers,
// the memory server (a knowledge graph, nothing in its name but "memory")
// gets the owner's facts in English and German, and questions about a
// computer's memory or general knowledge bring it nothing.
func TestKeepingServerOfPublishedCatalogC5(t *testing.T) {
	v := loadSnapshot(t, "catalog-extended.json").View()
	for _, tt := range []struct {
		msg  string
		want bool
	}{
		{"Remember that my daughter's school starts at 8", true},
		{"Merk dir, dass ich kein Fleisch esse", true},
		{"What do you know about my colleague Priya?", true},
		{"My laptop's memory is almost full", false},
		{"What do you know about the Roman empire?", false},
		{"I forgot my password again", false},
	} {
		if got := slices.Contains(offered(v, tt.msg), "memory"); got != tt.want {
			t.Errorf("%q: memory offered %v, want %v; because %v", tt.msg, got, tt.want, because(v, tt.msg)["memory"])
		}
	}
}
