package catalog_test

import (
	"slices"
	"testing"
)

// TestGateSmallTalkC5: with 17 servers and 294 tools connected, everyday
// conversation offers no server at all.
func TestGateSmallTalkC5(t *testing.T) {
	v := loadSnapshot(t, "catalog-extended.json").View()
	for _, m := range []string{
		"Good morning, how are you?", "What time is it in Tokyo?", "Translate 'thank you' into Japanese",
		"How do I cook risotto?", "Give me a motivational quote", "What's the capital of Australia?",
		"I need to fix my bike's chain", "Can you help me write a cover letter?", "Summarize the news for me",
		"My phone battery drains fast", "Recommend a good book", "What's 15% of 80?", "Plan a trip to Rome",
		"I feel tired today", "Explain quantum computing simply", "How many calories in an apple?",
		"Write a poem about the sea", "What should I name my project?", "The meeting went well today",
		"Ich habe Kopfschmerzen", "Wie spät ist es?", "Schreib mir ein Gedicht", "Was soll ich heute kochen?",
		"Let's play a game", "Tell me about the history of Rome", "I lost my keys", "What is a black hole?",
		"Remind me what we talked about", "How's the traffic?", "My order hasn't arrived",
		"I have an issue with my internet", "When is the release of the new Bond film?", "We took a long drive yesterday",
	} {
		if got := offered(v, m); len(got) > 0 {
			t.Errorf("%q offered %v", m, got)
		}
	}
}

// TestGateClearRequestsC5: a clear request reaches its server among many.
func TestGateClearRequestsC5(t *testing.T) {
	v := loadSnapshot(t, "catalog-extended.json").View()
	for _, tt := range []struct{ msg, want string }{
		{"List my Todoist tasks for today", "todoist"},
		{"Star the repository", "github"},
		{"Take a screenshot of example.com", "playwright"},
		{"Send an email to Anna", "gmail"},
		{"What's on my calendar tomorrow?", "google-calendar"},
		{"Show recent errors in Sentry", "sentry"},
		{"Find directions to the airport", "google-maps"},
		{"Read the file notes.txt", "filesystem"},
		{"List files in my Downloads folder", "filesystem"},
		{"Create a contact in HubSpot", "hubspot"},
		{"Deploy the edge function", "supabase"},
		{"Search the web for cheap flights", "brave-search"},
		{"Schick eine Nachricht in Slack", "slack"},
		{"Erstelle eine Aufgabe in Todoist", "todoist"},
		{"Zeig mir meine Termine morgen", "google-calendar"},
		{"Schreib eine E-Mail an Paul", "gmail"},
		// German verbs pair with English tool names through the glossary.
		{"Erstelle eine neue Aufgabe für morgen", "todoist"},
		{"Lösche die E-Mail von Paul", "gmail"},
		{"Suche in meinen Mails nach der Rechnung", "gmail"},
		{"Erstelle einen Termin am Freitag", "google-calendar"},
		{"Verschiebe die Datei in den Ordner Rechnungen", "filesystem"},
		{"Antworte im Slack-Thread", "slack"},
	} {
		if got := offered(v, tt.msg); !slices.Contains(got, tt.want) {
			t.Errorf("%q offered %v, want %s", tt.msg, got, tt.want)
		}
	}
}

// TestGateVerbsAloneC5: a verb pairs with a tool's noun, but alone it never
// offers a server, in either language.
func TestGateVerbsAloneC5(t *testing.T) {
	v := loadSnapshot(t, "catalog-extended.json").View()
	for _, m := range []string{"Verschiebe das bitte", "Antworte ihm freundlich", "Please move it", "Share it with me"} {
		if got := offered(v, m); len(got) > 0 {
			t.Errorf("%q offered %v", m, got)
		}
	}
}
