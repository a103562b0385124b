package collection

import (
	"slices"
	"testing"
)

// TestEveryStorePluginIsNamedByAPlainDescriptionC6: an agent described as
// an owner would, in English or German, has each plugin of the shipped
// store in its focus, installed or not; a description of nothing the
// store does names none.
func TestEveryStorePluginIsNamedByAPlainDescriptionC6(t *testing.T) {
	c, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	table := []struct{ plugin, en, de string }{
		{"airtable", "keeps the records in my Airtable bases up to date", "pflegt die Einträge in meinen Airtable-Tabellen"},
		{"apify", "runs Apify actors that scrape data from websites", "startet Apify-Actors, die Daten von Webseiten sammeln"},
		{"asana", "follows up on my tasks and projects in Asana", "kümmert sich um meine Aufgaben und Projekte in Asana"},
		{"atlassian", "triages Jira tickets and updates Confluence pages", "sortiert Jira-Tickets und pflegt Confluence-Seiten"},
		{"box", "finds and organises documents in my Box account", "findet und ordnet Dokumente in meinem Box-Konto"},
		{"browserbase", "browses websites for me in a Browserbase cloud browser", "bedient Webseiten für mich in einem Browserbase-Browser in der Cloud"},
		{"buildkite", "watches my Buildkite builds and retries flaky ones", "beobachtet meine Buildkite-Builds und startet fehlgeschlagene neu"},
		{"cal-com", "manages my bookings and availability on Cal.com", "verwaltet meine Buchungen und Verfügbarkeit bei Cal.com"},
		{"clickup", "tracks my tasks and time in ClickUp", "verfolgt meine Aufgaben und Zeiten in ClickUp"},
		{"cloudflare", "looks after my Cloudflare DNS and Workers", "kümmert sich um mein Cloudflare-DNS und meine Workers"},
		{"context7", "looks up current library documentation on Context7 while I code", "sucht beim Programmieren aktuelle Bibliotheksdokumentation bei Context7"},
		{"deepwiki", "answers questions about open source repositories from DeepWiki", "beantwortet Fragen zu Open-Source-Repositories mit DeepWiki"},
		{"discord", "keeps an eye on my Discord server and posts announcements", "behält meinen Discord-Server im Blick und postet Ankündigungen"},
		{"exa", "researches topics on the web with Exa search", "recherchiert Themen im Netz mit der Exa-Suche"},
		{"figma", "reads my Figma designs and components", "liest meine Figma-Designs und Komponenten"},
		{"firecrawl", "crawls websites with Firecrawl and summarises them", "durchsucht Webseiten mit Firecrawl und fasst sie zusammen"},
		{"github", "reviews pull requests in my GitHub repos", "prüft Pull Requests in meinen GitHub-Repositories"},
		{"gitlab", "checks merge requests and pipelines on GitLab", "prüft Merge Requests und Pipelines auf GitLab"},
		{"gmail", "a daily overview of my Gmail inbox", "ein täglicher Überblick über meinen Gmail-Posteingang"},
		{"google-calendar", "plans my week in Google Calendar", "plant meine Woche im Google Kalender"},
		{"google-drive", "files and finds my documents in Google Drive", "legt meine Dokumente in Google Drive ab und findet sie"},
		{"grafana", "watches my Grafana dashboards and alerts", "überwacht meine Grafana-Dashboards und Alarme"},
		{"home-assistant", "switches the lights and heating through Home Assistant", "schaltet Licht und Heizung über Home Assistant"},
		{"hubspot", "updates contacts and deals in HubSpot", "pflegt Kontakte und Deals in HubSpot"},
		{"huggingface", "finds models and datasets on Hugging Face", "findet Modelle und Datensätze auf Hugging Face"},
		{"intercom", "reads customer support conversations in Intercom", "liest Support-Gespräche mit Kunden in Intercom"},
		{"jam", "digs into bug reports recorded with Jam", "untersucht mit Jam aufgezeichnete Fehlerberichte"},
		{"linear", "grooms the issues and cycles in Linear", "pflegt die Issues und Zyklen in Linear"},
		{"make", "runs my Make scenarios and automations", "startet meine Make-Szenarien und Automationen"},
		{"mercadopago", "checks my Mercado Pago integration", "prüft meine Mercado-Pago-Integration"},
		{"monday", "keeps my monday.com boards up to date", "hält meine monday.com-Boards aktuell"},
		{"neon", "manages my Neon Postgres databases and branches", "verwaltet meine Neon-Postgres-Datenbanken und Branches"},
		{"notion", "keeps my Notion pages tidy", "hält meine Notion-Seiten in Ordnung"},
		{"postman", "maintains my Postman collections and API specs", "pflegt meine Postman-Collections und API-Spezifikationen"},
		{"prisma", "sets up Prisma Postgres databases and backups", "richtet Prisma-Postgres-Datenbanken und Backups ein"},
		{"sentry", "investigates errors reported in Sentry", "untersucht Fehler, die Sentry meldet"},
		{"slack", "summarises my Slack channels", "fasst meine Slack-Kanäle zusammen"},
		{"spotify", "plays music and builds playlists on Spotify", "spielt Musik und baut Playlists auf Spotify"},
		{"square", "looks after payments and orders in my Square shop", "kümmert sich um Zahlungen und Bestellungen in meinem Square-Shop"},
		{"stripe", "keeps track of my Stripe payments and refunds", "behält meine Stripe-Zahlungen und Erstattungen im Blick"},
		{"supabase", "manages my Supabase projects and migrations", "verwaltet meine Supabase-Projekte und Migrationen"},
		{"tavily", "searches the web with Tavily", "sucht im Netz mit Tavily"},
		{"telegram", "sends me Telegram messages", "schickt mir Telegram-Nachrichten"},
		{"todoist", "manages my to-dos and reminders in Todoist", "verwaltet meine To-dos und Erinnerungen in Todoist"},
		{"vercel", "watches my Vercel deployments", "beobachtet meine Vercel-Deployments"},
		{"webflow", "publishes my Webflow site", "veröffentlicht meine Webflow-Seite"},
		{"wix", "runs my Wix site and its store", "betreut meine Wix-Seite und ihren Shop"},
		{"youtube-music", "plays songs on YouTube Music", "spielt Lieder auf YouTube Music"},
		{"zapier", "runs my Zapier actions", "führt meine Zapier-Aktionen aus"},
	}
	named := func(text string) []string {
		byName, byWords := c.Named(text)
		return append(byName, byWords...)
	}
	covered := map[string]bool{}
	for _, tc := range table {
		covered[tc.plugin] = true
		for _, text := range []string{tc.en, tc.de} {
			if got := named(text); !slices.Contains(got, tc.plugin) {
				t.Errorf("%q names %v, want %s among them", text, got, tc.plugin)
			}
		}
	}
	for name := range c {
		if !covered[name] {
			t.Errorf("the store's plugin %s has no description in this table", name)
		}
	}
	for _, text := range []string{"answers my questions", "beantwortet meine Fragen", "a friendly assistant for everyday chat"} {
		if got := named(text); len(got) > 0 {
			t.Errorf("%q names %v, want none", text, got)
		}
	}
	// Named by name, a plugin comes alone; an everyday word that is a
	// plugin's name names it only written as a name.
	for text, want := range map[string]string{
		"reviews pull requests in my GitHub repos":        "github",
		"sends me Telegram messages":                      "telegram",
		"Make sure nothing in my Gmail inbox goes unread": "gmail",
		"puts a box of reminders in my Todoist":           "todoist",
	} {
		if got := named(text); len(got) != 1 || got[0] != want {
			t.Errorf("%q names %v, want %s alone", text, got, want)
		}
	}
}
