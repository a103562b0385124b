package catalog_test

import (
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog"
)

// withRecall adds a server that searches what was said, as the builtin
// memory stands in the catalog.
func withRecall(t testing.TB, c *catalog.Catalog) {
	t.Helper()
	err := c.SetBuiltinServer(catalog.Server{ID: "recall", Title: "Memory", Past: true, Connected: true,
		Instructions: "Searches everything said in past conversations and the wiki."},
		[]catalog.Capability{{ID: "builtin:memory", Kind: catalog.KindBuiltin, Source: "builtin", Name: "memory",
			Description: "Search everything said in past conversations and the wiki, or read a chat's latest messages.", Tier: catalog.TierSafe, Connected: true}})
	if err != nil {
		t.Fatal(err)
	}
}

// TestGatePastA6C5: the memory is offered when the owner refers to what was
// said before or to remembering, in English and German, and not on a time
// of the past alone, on a request to keep a fact or for a reminder, or on
// the words of its tools; the servers a message is about are offered
// beside it as before.
func TestGatePastA6C5(t *testing.T) {
	c := loadSnapshot(t, "catalog-extended.json")
	withRecall(t, c)
	v := c.View()
	recall := []string{"recall"}
	checkOffered(t, v, []offer{
		// what was said
		{"What did I tell you about the landlord in October?", recall},
		{"You mentioned a good Italian place, what was it called?", recall},
		{"We talked about my sister's wedding last week", recall},
		{"What was the name of the book you recommended?", recall},
		{"Didn't you say the train leaves at nine?", recall},
		{"Was hab ich dir über den Vermieter gesagt?", recall},
		{"Worüber haben wir gestern gesprochen?", recall},
		{"Du hattest mir doch ein Restaurant empfohlen", recall},
		// remembering
		{"Do you remember the name of that plumber?", recall},
		{"Can you recall what the doctor said?", recall},
		{"Erinnerst du dich an die Adresse vom Zahnarzt?", recall},
		{"I forgot what we agreed on for the budget", recall},
		// a time of the past with a verb of saying
		{"What did we decide three weeks ago?", recall},
		{"Letzte Woche haben wir über den Umzug geredet", recall},
		// not about what was said
		{"Why did yesterday's deploy take so long?", nil},
		{"We took a long drive yesterday", nil},
		{"I drove from Berlin to Hamburg last year and loved it", nil},
		{"Remember to buy milk", nil},
		{"Erinnere mich morgen an den Zahnarzt", nil},
		{"Please search my messages", nil},
		{"What is 12 times 13?", nil},
		{"Tell me a joke", nil},
		{"Sag mir, wie spät es ist", nil},
	})
}

// TestGatePastOnRequestC8: the memory is one service line of the stable
// prompt and comes into any turn when the model asks for it by name.
func TestGatePastOnRequestC8(t *testing.T) {
	c := catalog.New()
	withRecall(t, c)
	pl := c.View().Plan(catalog.Policy{})
	var found bool
	for _, s := range pl.Services() {
		if s.ID == "recall" && s.Title == "Memory" && s.Usage != "" {
			found = true
		}
	}
	if !found {
		t.Errorf("the memory is not among the services: %+v", pl.Services())
	}
	for _, name := range []string{"recall", "Memory", "memory"} {
		caps, err := pl.Requested(name)
		if err != nil || len(caps) != 1 || caps[0].ID != "builtin:memory" {
			t.Errorf("Requested(%q) = %v, %v; want builtin:memory", name, caps, err)
		}
	}
	blocked := c.View().Plan(catalog.Policy{Block: []string{"builtin:memory"}})
	if caps, err := blocked.Requested("recall"); len(caps) != 0 {
		t.Errorf("a blocked memory came on request: %v, %v", caps, err)
	}
	var turn catalog.Turn
	blocked.Turn("What did I tell you yesterday?", &turn)
	for _, cp := range turn.Tools {
		if cp.ID == "builtin:memory" {
			t.Errorf("a blocked memory was offered")
		}
	}
}

// BenchmarkGateExtendedRecall is BenchmarkGateExtended with the memory
// among the servers: what reading the words of the past costs a turn.
func BenchmarkGateExtendedRecall(b *testing.B) {
	c := loadSnapshot(b, "catalog-extended.json")
	withRecall(b, c)
	g := c.View().Gate()
	out := make([]catalog.Decision, 0, 32)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		out = g.Check(benchMessages[i%len(benchMessages)], out[:0])
		i++
	}
}
