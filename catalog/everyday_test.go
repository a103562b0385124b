package catalog_test

import (
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog"
)

// TestGateToolNameGlueWordsC5: tool names are glued together from common
// English verbs and particles (take_screenshot, navigate_back,
// select_option); such a word alone never offers a server, while the
// service's own nouns still do.
func TestGateToolNameGlueWordsC5(t *testing.T) {
	v := loadSnapshot(t, "catalog-extended.json").View()
	checkOffered(t, v, []offer{
		{"Take a deep breath before the exam", nil},
		{"I'll be back right after lunch", nil},
		{"Please select a good wine for dinner", nil},
		{"Wait for me at the station", nil},
		{"Press the garlic and fill the pot with water", nil},
		{"Take a screenshot of the checkout page", []string{"playwright"}},
		{"What's on my calendar tomorrow?", []string{"google-calendar"}},
	})
}

// TestGateEverydayWordAloneC5: one everyday word never offers a server,
// even when it is evidence twice over (the server's name and a word of its
// card); a second word of the message does.
func TestGateEverydayWordAloneC5(t *testing.T) {
	c := catalog.New()
	add := adder(t, c)
	add(catalog.Server{ID: "notes", Title: "Notes", Card: []string{"notes", "journal"}},
		named("append_entry")...)
	v := c.View()
	checkOffered(t, v, []offer{
		{"I took notes in the lecture", nil},
		{"Lies mir die Notes vor", nil},
		{"Add this to the journal in my notes", []string{"notes"}},
	})
	d := v.Gate().Check("I took notes in the lecture", nil)[0]
	if d.Offered || d.Evident() || d.Because() == "" {
		t.Errorf("one everyday word: offered %v, evident %v, because %q", d.Offered, d.Evident(), d.Because())
	}
}

// TestGateRareToolVerbsC5: a verb from a tool name counts only beside a
// noun of that tool, however rare the verb ("rename", "deploy", "resize"
// are below the frequency line of everyday glue): alone it offers nothing,
// since every service renames or deploys something.
func TestGateRareToolVerbsC5(t *testing.T) {
	c := catalog.New()
	add := adder(t, c)
	add(catalog.Server{ID: "sitehost", Title: "Site Host"},
		named("deploy_site", "rename_domain", "resize_thumbnails", "list_sites")...)
	v := c.View()
	checkOffered(t, v, []offer{
		{"Can you rename the spreadsheet on my desk?", nil},
		{"Why did yesterday's deploy take so long?", nil},
		{"Resize this photo for the print shop", nil},
		{"Benenne das Dokument um und resize es", nil},
		{"Deploy the site again", []string{"sitehost"}},
		{"Rename the domain to something shorter", []string{"sitehost"}},
		{"Make the thumbnails smaller", []string{"sitehost"}},
	})
}

// TestGateFileNamesC5: a file named by its name ("budget-2027.ods",
// "Reisekosten März.xlsx") is evidence of the word "file", and of
// "document" when it is one, for every server whose words say so; like
// the word itself it is everyday: one file name alone offers nothing, nor
// does a web address or a framework's name.
func TestGateFileNamesC5(t *testing.T) {
	c := catalog.New()
	add := adder(t, c)
	add(catalog.Server{ID: "localfiles", Title: "Local Files"},
		named("read_file", "move_file", "list_directory")...)
	add(catalog.Server{ID: "papers", Title: "Papers", Card: []string{"file", "folder", "document"}},
		named("find")...)
	v := c.View()
	checkOffered(t, v, []offer{
		{"Move budget-2027.ods somewhere else", []string{"localfiles"}},
		{"Lies mir notizen.txt vor", []string{"localfiles"}},
		{"Put Angebot.odt into the blue folder", []string{"localfiles", "papers"}},
		{"Is holiday.jpeg too big to attach?", nil},
		{"Hast du Reisekosten März.xlsx gesehen?", nil},
		{"Is draft-1.odt newer than draft-2.odt?", nil},
		{"Visit example.com for the details", nil},
		{"I use Node.js at work", nil},
	})
}

// TestGateEverydayWordsNeedARequestC5: two everyday words of one carded
// server add up only when the message asks for something of the owner's
// (my, mein, I, ich, you, a request's verb first, please): a question about
// files and folders in general is no request to a file service, and a
// manual that matched the same words does not bring the server back.
func TestGateEverydayWordsNeedARequestC5(t *testing.T) {
	c := catalog.New()
	add := adder(t, c)
	add(catalog.Server{ID: "papers", Title: "Papers", Card: []string{"file", "folder", "Datei", "Ordner"}},
		named("find")...)
	v := c.View()
	checkOffered(t, v, []offer{
		{"Is a folder just a file that holds other files?", nil},
		{"Wie unterscheiden sich Ordner und Datei eigentlich?", nil},
		{"Put that file into the tax folder", []string{"papers"}},
		{"Which folder did I save the file in?", []string{"papers"}},
		{"Leg die Datei in meinen Ordner", []string{"papers"}},
		{"Zeig die Datei aus dem Ordner Steuern", []string{"papers"}},
		{"Can you tell which folder holds the lease file?", []string{"papers"}},
	})
	d := v.Gate().Check("Is a folder just a file that holds other files?", nil)[0]
	if d.Offered || d.Evident() || !strings.Contains(d.Because(), "asks for nothing") {
		t.Errorf("a question about the words: offered %v, evident %v, because %q", d.Offered, d.Evident(), d.Because())
	}
}

// TestTurnManualKeepsUnaskedOutC5: the gate's refusal of everyday card
// words in a message that asks for nothing holds when the skill scorer
// found the plugin's manual by the same words.
func TestTurnManualKeepsUnaskedOutC5(t *testing.T) {
	c := catalog.New()
	add := adder(t, c)
	add(catalog.Server{ID: "papers", Title: "Papers", Plugin: "papers", Card: []string{"file", "folder"}},
		named("find")...)
	pl := c.View().Plan(catalog.Policy{})
	var turn catalog.Turn
	pl.Turn("Why would a file need a folder at all?", &turn, "papers")
	if d := turn.Decisions[0]; d.Offered {
		t.Errorf("a question about the words offered papers through its manual: %s", d.Because())
	}
	pl.Turn("Which folder has my lease file?", &turn, "papers")
	if d := turn.Decisions[0]; !d.Offered {
		t.Errorf("a request about the owner's file did not offer papers: %s", d.Because())
	}
}
