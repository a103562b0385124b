package wiki

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog"
)

// TestRunA2: the wiki is the runner of builtin:wiki for the agent runtime,
// with the same answers as Call.
func TestRunA2(t *testing.T) {
	w, _ := newWiki(t)
	cp := w.Capability()
	ctx := context.Background()
	if out, err := w.Run(ctx, catalog.Call{Cap: &cp, Args: json.RawMessage(`{"action":"write","name":"seam","body":"one runner per kind"}`)}); err != nil || out.IsError || !strings.Contains(out.Text, "saved seam") {
		t.Fatalf("write: %+v %v", out, err)
	}
	if out, err := w.Run(ctx, catalog.Call{Cap: &cp, Args: json.RawMessage(`{"action":"read","name":"seam"}`)}); err != nil || !strings.Contains(out.Text, "one runner per kind") {
		t.Errorf("read: %+v %v", out, err)
	}
	if _, err := w.Run(ctx, catalog.Call{Cap: &cp, Args: json.RawMessage(`{"action":"read"}`)}); err == nil {
		t.Error("read without a name ran")
	}
}

// TestDescribeCH2: a wiki call's approval request names the page, says
// whether writing replaces one, and carries the text.
func TestDescribeCH2(t *testing.T) {
	w, _ := newWiki(t)
	cp := w.Capability()
	ctx := context.Background()
	if _, err := w.Write(ctx, "garden", "old text"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args, want string
		ok         bool
	}{
		{`{"action":"write","name":"groceries","body":"milk\neggs"}`, "Create the wiki page groceries\nPage: groceries\nText: milk\neggs", true},
		{`{"action":"write","name":"garden","body":"new"}`, "Replace the whole text of the wiki page garden\nPage: garden\nText: new", true},
		{`{"action":"write","name":"garden","text":"slip"}`, "Replace the whole text of the wiki page garden\nPage: garden\nText: slip", true},
		{`{"action":"append","name":"garden","text":"more"}`, "Add to the end of the wiki page garden\nPage: garden\nText: more", true},
		{`{"action":"read","name":"garden"}`, "Read the wiki page garden\nPage: garden", true},
		{`{"action":"search","query":"roses"}`, "Search the wiki\nWords: roses", true},
		{`{"action":"delete","name":"garden"}`, "", false},
		{`{"action":"write","content":"x"}`, "", false},
	}
	for _, c := range cases {
		d, ok := w.Describe(ctx, catalog.Call{Cap: &cp, Args: json.RawMessage(c.args)})
		got := d.What
		for _, l := range d.Lines {
			got += "\n" + l.Label + ": " + l.Value
		}
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("%s:\ngot (%v)\n%s\nwant\n%s", c.args, ok, got, c.want)
		}
	}
}
