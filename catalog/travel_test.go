package catalog_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog"
)

// TestGateTravelReachesMapsC5: travel and place questions reach a maps
// server added by hand, whose uses are only in its tool descriptions and
// argument values, in English and German, without its tool words: a way
// named by its two ends, one end with a way of travelling, a phrase of
// nearness in a where-question.
func TestGateTravelReachesMapsC5(t *testing.T) {
	v := loadSnapshot(t, "catalog-extended.json").View()
	for _, m := range []string{
		"How long does it take to drive from Munich to Salzburg?",
		"How far is it from Leipzig to Dresden?",
		"Wie komme ich am schnellsten von Freiburg nach Basel",
		"What's the quickest way between Zurich and Lucerne?",
		"Wie lange fahre ich mit dem Rad nach Potsdam?",
		"How long does it take to walk to the Marienplatz?",
		"Is there a pharmacy close to the station?",
		"Gibt es ein Café in der Nähe vom Rathaus?",
		"Where is the nearest ATM?",
		"Show me how to get from New York to Boston",
	} {
		if got := offered(v, m); !slices.Contains(got, "google-maps") {
			t.Errorf("%q offered %v, want google-maps", m, got)
		}
	}
}

// TestGateTravelNegativesC5: the same words outside a question about a
// way or a place offer no maps server: times joined by from/to or von/bis,
// lower-case words, a trip told as a story, distance as an idea.
func TestGateTravelNegativesC5(t *testing.T) {
	v := loadSnapshot(t, "catalog-extended.json").View()
	for _, m := range []string{
		"How far is the moon?",
		"I drove from Berlin to Hamburg last year and loved it",
		"We meet from time to time",
		"Von Montag bis Freitag arbeite ich",
		"Are you free from Monday to Friday?",
		"Is the release close to the deadline?",
		"I am close to finishing the report",
		"What is the closest thing to happiness?",
		"Nach dem Essen gehe ich schlafen",
		// Things sent or moved between named ends, for another server.
		"Forward the email from Anna to Peter",
		"Can you forward the email from Anna to Peter?",
		"Move the file from Downloads to Documents",
		"Search the web for flights from Berlin to Rome",
	} {
		if got := offered(v, m); slices.Contains(got, "google-maps") {
			t.Errorf("%q offered %v", m, got)
		}
	}
}

// TestDerivedCardReadsEnumValuesC5: the values a tool's argument takes
// ("driving", "walking", "bicycling", "transit" of a travel mode) join a
// derived card as weak words: people say the value, not the argument.
// Codes ("us-east-1", "ASC") are no words and stay out.
func TestDerivedCardReadsEnumValuesC5(t *testing.T) {
	v := loadSnapshot(t, "catalog-extended.json").View()
	got := map[string]string{}
	for _, server := range []string{"google-maps", "supabase", "github"} {
		for _, e := range v.Gate().Vocabulary(server) {
			if e.Kind == catalog.EvDesc {
				got[e.Word] = e.Term
				// A term's label may name the word it stands for:
				// "walking (for distance)".
				got[strings.Fields(e.Term)[0]] = e.Term
			}
		}
	}
	for _, want := range []string{"driving", "walking", "bicycling", "transit"} {
		if got[want] == "" {
			t.Errorf("google-maps' derived card lacks the travel mode %q", want)
		}
	}
	for _, code := range []string{"us-east-1", "ASC", "asc", "get_diff"} {
		if term := got[code]; term != "" {
			t.Errorf("a derived card holds the code %q (for %q)", code, term)
		}
	}
}
