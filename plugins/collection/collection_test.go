package collection

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestShippedStoreP2S2: every shipped plugin validates and has a manual
// that names its plugin and its words in English and German.
func TestShippedStoreP2S2(t *testing.T) {
	all, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 40 { // the issue asks for at least 40
		t.Errorf("%d shipped plugins", len(all))
	}
	for id, sp := range all {
		m := sp.Manual
		if m == nil {
			t.Errorf("%s: no manual", id)
			continue
		}
		if m.Plugin != id || len(m.Words) == 0 || len(m.WordsDE) == 0 || m.Tier == "" {
			t.Errorf("%s: manual header plugin=%q words=%d de=%d tier=%q", id, m.Plugin, len(m.Words), len(m.WordsDE), m.Tier)
		}
		if len(sp.Card()) == 0 {
			t.Errorf("%s: no usage card", id)
		}
	}
	var signs, not int
	for id, sp := range all {
		if all.SignsIn(id) != sp.Plugin.NeedsSignIn() {
			t.Errorf("SignsIn(%s) = %v, want %v", id, all.SignsIn(id), sp.Plugin.NeedsSignIn())
		}
		if all.SignsIn(id) {
			signs++
		} else {
			not++
		}
	}
	if signs == 0 || not == 0 || all.SignsIn("no-such-plugin") {
		t.Errorf("SignsIn: %d plugins sign in, %d do not, an unknown one %v", signs, not, all.SignsIn("no-such-plugin"))
	}
	manuals := all.Manuals()
	if len(manuals) != len(all) {
		t.Errorf("Manuals has %d entries for %d plugins", len(manuals), len(all))
	}
	for id, sp := range all {
		if manuals[id] != sp.Manual {
			t.Errorf("Manuals()[%s] is not the plugin's manual", id)
		}
	}
}

// writePlugin writes a local plugin folder <data>/plugins/folder named
// name, with a manual when manual is set.
func writePlugin(t *testing.T, data, folder, name string, manual bool) string {
	t.Helper()
	dir := filepath.Join(data, "plugins", folder)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(rel, text string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("plugin.json", `{"$schema":"https://agent-plugins.org/schemas/1.0.0/plugin.schema.json","name":"`+name+`","version":"1.0.0","description":"Demo widgets.",
		"extensions":{"dev.jarvisbot":{"displayName":"Demo","signIn":{"method":"none"}}}}`)
	if manual {
		write("skills/"+name+"/SKILL.md", "---\nname: "+name+"\ndescription: Use when the owner asks about Demo widgets.\nmetadata:\n  jarvisbot.plugin: "+name+"\n  jarvisbot.words: widget\n---\n# Demo\nUse the demo tools.\n")
	}
	return dir
}

// TestLoadLocalPluginsP1: a local plugin joins the collection with its
// manual, or a placeholder manual when it brings none; one named like a
// shipped plugin, or like another local one, is reported and never
// replaces it; a broken one is reported and skipped.
func TestLoadLocalPluginsP1(t *testing.T) {
	data := t.TempDir()
	withManual := writePlugin(t, data, "demo", "demo", true)
	bare := writePlugin(t, data, "bare", "bare", false)
	writePlugin(t, data, "github", "github", true)
	writePlugin(t, data, "zz-demo-copy", "demo", true)
	if err := os.MkdirAll(filepath.Join(data, "plugins", "broken"), 0o700); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	all, err := Load(data, &warn)
	if err != nil {
		t.Fatal(err)
	}
	if p := all["demo"]; p.Local != withManual || p.Manual == nil || len(p.Manual.Words) == 0 {
		t.Errorf("demo = %+v, want the local plugin with its manual", p)
	}
	if p := all["bare"]; p.Local != bare || p.Manual == nil || p.Manual.Plugin != "bare" {
		t.Errorf("bare = %+v, want a placeholder manual naming it", p)
	}
	if all["github"].Local != "" {
		t.Error("a local plugin replaced the shipped github plugin")
	}
	for _, want := range []string{"like a plugin that ships with jarvisbot", "holds a plugin named \"demo\" already", "skipping local plugin broken"} {
		if !strings.Contains(warn.String(), want) {
			t.Errorf("warnings lack %q:\n%s", want, warn.String())
		}
	}
}

type installed []store.InstalledPlugin

func (l installed) InstalledPlugins(context.Context) ([]store.InstalledPlugin, error) { return l, nil }

// TestManualsOnS2P4: a plugin's manual is on when it is installed or its
// server is connected, and never while its sign-in needs renewing.
func TestManualsOnS2P4(t *testing.T) {
	db := installed{{Name: "asana", State: store.PluginInstalled}, {Name: "box", State: store.PluginNeedsAttention}}
	c := catalog.New()
	if err := c.SetServer(catalog.Server{ID: "gh", Plugin: "github", Connected: true}, nil); err != nil {
		t.Fatal(err)
	}
	on, err := Connected(context.Background(), db, c.View())
	if err != nil {
		t.Fatal(err)
	}
	if !on["asana"] || !on["github"] || on["box"] || len(on) != 2 {
		t.Errorf("on = %v, want asana and github", on)
	}
	att, err := NeedingAttention(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if !att["box"] || len(att) != 1 {
		t.Errorf("needing attention = %v, want box", att)
	}
}
