package catalog_test

import (
	"slices"
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog"
)

// handAddedCatalog holds servers added by hand whose uses are said only in
// their tool descriptions and instructions: tool names that name nothing
// ("run_query", "get_item"), no manual, no card. Written for this test, in
// the shape real servers send; none of them is a fixture server.
func handAddedCatalog(t *testing.T) *catalog.View {
	t.Helper()
	c := catalog.New()
	add := adder(t, c)
	tool := described
	add(catalog.Server{ID: "wayfinder", Title: "Wayfinder",
		Instructions: "Gives directions between addresses, travel times by car, bike or transit, and shops or cafés nearby."},
		tool("run_query", "Compute a journey with directions between two addresses. Returns the travel time and distance for each mode of transport."),
		tool("get_item", "Look up shops, cafés and pharmacies nearby a location, with opening hours. Use `radius` (meters) to widen it."))
	add(catalog.Server{ID: "lookup", Title: "Lookup",
		Instructions: "Searches the web for current news, product reviews and articles."},
		tool("run_query", "Query the web. Results carry title, snippet and date; set `freshness` to limit them."),
		tool("get_item", "Fetch one result page in full."))
	add(catalog.Server{ID: "keeper", Title: "Keeper",
		Instructions: "Keeps facts about the user and recalls them later."},
		tool("put_item", "Store a fact about the user."),
		tool("get_item", "Return the facts stored about a person or a topic."),
		tool("drop_item", "Forget a fact completely. A forgotten fact is gone permanently, its history erased."))
	add(catalog.Server{ID: "github", Title: "GitHub", Plugin: "github", Card: []string{"repo", "pull request", "issue"}},
		tool("create_pull_request", "Create a pull request."), tool("list_issues", "List issues."))
	return c.View()
}

// TestDerivedCardCarriesUsesC5: a hand-added server's card is derived from
// its descriptions and instructions, so requests about its uses reach it in
// English and German, and conversation about other things does not.
func TestDerivedCardCarriesUsesC5(t *testing.T) {
	v := handAddedCatalog(t)
	checkOffered(t, v, []offer{
		// travel and places
		{"I need directions to the central station", []string{"wayfinder"}},
		{"What's the travel time to the airport by bike?", []string{"wayfinder"}},
		{"Are there any cafés nearby that are still open?", []string{"wayfinder"}},
		{"Zeig mir die Wegbeschreibung zum Bahnhof", []string{"wayfinder"}},
		// looking things up online
		{"Look up the latest news on the election", []string{"lookup"}},
		{"Schau im Internet nach, wann das Museum öffnet", []string{"lookup"}},
		{"Find reviews of the new phone online", []string{"lookup"}},
		// facts about the owner: "fact" is an everyday word (C5), so it
		// needs a second word of the card; alone it is left to the way back
		// (C8), where the prompt lists the server with its instructions.
		{"Recall the facts you stored about my sister", []string{"keeper"}},
		{"Can you recall the facts about my shoe size?", []string{"keeper"}},
		{"Which facts do you have about my sister?", nil},
		{"Welche Fakten kennst du über meine Schwester?", nil},
		// none
		{"Write a haiku about autumn", nil},
		{"What is 17 times 23?", nil},
		{"How do I get better at chess?", nil},
		{"Wie geht es dir heute?", nil},
		{"Create a pull request with this branch", []string{"github"}},
	})
}

// TestDerivedCardShowsSourceC5: `catalog card` shows where each derived
// word came from, and a word of one description among many tools stays out.
func TestDerivedCardShowsSourceC5(t *testing.T) {
	v := handAddedCatalog(t)
	var got []string
	for _, e := range v.Gate().Vocabulary("wayfinder") {
		if e.Kind == catalog.EvDesc {
			got = append(got, e.Word+" from "+e.Source)
		}
	}
	for _, want := range []string{"directions from instructions", "nearby from instructions"} {
		if !slices.Contains(got, want) {
			t.Errorf("wayfinder's derived card %v lacks %q", got, want)
		}
	}
	for _, server := range []string{"wayfinder", "keeper"} {
		for _, e := range v.Gate().Vocabulary(server) {
			switch e.Word {
			case "compute", "radius", "meters", "forget", "completely", "permanently", "erased":
				t.Errorf("%s's derived card holds %q (%s): a verb, an adverb or an argument is no use", server, e.Word, e.Kind)
			}
		}
	}
}

func because(v *catalog.View, msg string) map[string]string {
	out := map[string]string{}
	for _, d := range v.Gate().Check(msg, nil) {
		if d.Score > 0 {
			out[d.Server] = d.Because()
		}
	}
	return out
}

// TestDerivedCardsOfPublishedServersC5: over the 17 published servers,
// the uses their descriptions name reach the hand-added ones (with a
// second word, as any everyday use), and passing words of those
// descriptions do not.
func TestDerivedCardsOfPublishedServersC5(t *testing.T) {
	v := loadSnapshot(t, "catalog-extended.json").View()
	for _, tt := range []struct {
		msg    string
		want   string // offered
		absent string // not offered
	}{
		{"Any local businesses that repair bikes near me?", "brave-search", ""},
		{"Find articles online about climate policy", "brave-search", ""},
		{"What's in your knowledge graph about me?", "memory", ""},
		{"I read an article about whales yesterday", "", "brave-search"},
		{"My knowledge of French is poor", "", "memory"},
		{"Which elements does my website use for its header?", "", "notebooklm-mcp"},
	} {
		got := offered(v, tt.msg)
		if tt.want != "" && !slices.Contains(got, tt.want) || tt.absent != "" && slices.Contains(got, tt.absent) {
			t.Errorf("%q offered %v; want %q in it, %q not; because %v", tt.msg, got, tt.want, tt.absent, because(v, tt.msg))
		}
	}
}

// TestDerivedPairsFromPurposeC5: a verb that a tool's purpose sentence
// names beside the tool's own noun ("Move or rename files") pairs with
// that noun like the tool name's own verb, and alone stays nothing.
func TestDerivedPairsFromPurposeC5(t *testing.T) {
	c := catalog.New()
	err := c.SetServer(catalog.Server{ID: "stash", Title: "Stash", Connected: true}, []catalog.SnapshotTool{
		{Name: "move_file", Description: "Move or rename files between places. Both paths must exist."},
		{Name: "read_file", Description: "Read a file in full."},
		{Name: "write_file", Description: "Write text to a file, replacing what it held."},
		{Name: "copy_file", Description: "Copy a file to a second place."},
		{Name: "delete_file", Description: "Delete a file for good."},
		{Name: "list_files", Description: "List the files under a path with their sizes."},
		{Name: "search_files", Description: "Search files by a pattern in their names."},
		{Name: "file_info", Description: "Tell the size, owner and dates of a file."},
	})
	if err != nil {
		t.Fatal(err)
	}
	v := c.View()
	checkOffered(t, v, []offer{
		{"Rename the file with the garden photos", []string{"stash"}},
		{"Rename letter-to-anna.odt to letter-sent.odt", []string{"stash"}},
		{"Rename the garden party", nil},
		{"They renamed that file last year", nil},
	})
	// The pair is the tool's own, as strong as its name's: not a passing
	// word of a derived card, which a server with more tools would drop.
	d := v.Gate().Check("Rename the file with the garden photos", nil)[0]
	if !slices.ContainsFunc(d.Evidence(), func(e catalog.Evidence) bool {
		return e.Kind == catalog.EvPair && e.Source == "move_file" && e.Weight == 2
	}) {
		t.Errorf("no tool pair from move_file's purpose: %s", d.Because())
	}
}

// TestToolPairsMatchInEitherOrderC5: a tool pair counts whichever of its
// words comes first ("close the ticket", "the ticket: close it"); a
// phrase of a usage card counts only in its own order. Tool pairs are filed once, under their words in sorted order.
func TestToolPairsMatchInEitherOrderC5(t *testing.T) {
	c := catalog.New()
	err := c.SetServer(catalog.Server{ID: "desk", Title: "Helpdesk", Connected: true, Card: []string{"pull request"}}, []catalog.SnapshotTool{
		{Name: "close_ticket", Description: "Close a ticket."},
	})
	if err != nil {
		t.Fatal(err)
	}
	g := c.View().Gate()
	has := func(msg string, kind catalog.EvidenceKind) bool {
		return slices.ContainsFunc(g.Check(msg, nil)[0].Evidence(), func(e catalog.Evidence) bool { return e.Kind == kind })
	}
	for _, msg := range []string{"Close the ticket", "The ticket from Lena, close it"} {
		if !has(msg, catalog.EvPair) {
			t.Errorf("%q: no tool pair: %s", msg, g.Check(msg, nil)[0].Because())
		}
	}
	if !has("Open a pull request", catalog.EvCard) {
		t.Errorf("the card's phrase in its order is not matched: %s", g.Check("Open a pull request", nil)[0].Because())
	}
	if d := g.Check("Please request a pull of the sample", nil)[0]; slices.ContainsFunc(d.Evidence(), func(e catalog.Evidence) bool { return e.Word == "pull request" }) {
		t.Errorf("the card's phrase matched in reverse order: %s", d.Because())
	}
}
