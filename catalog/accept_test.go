package catalog_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog"
)

// badTools is a server's list with every kind of tool the catalog cannot
// hold beside two good ones.
func badTools() []catalog.SnapshotTool {
	return []catalog.SnapshotTool{
		{Name: "good_one", Description: "first listing"},
		{Name: "a/b"},
		{Name: "bell\x07"},
		{Name: "bidi\u202eexe"},
		{Name: ""},
		{Name: "   "},
		{Name: strings.Repeat("x", 129)},
		{Name: "good_one", Description: "second listing"},
		{Name: "bad_schema", InputSchema: json.RawMessage(`[1]`)},
		{Name: "good-two", InputSchema: json.RawMessage(`{"type":"object"}`)},
	}
}

// TestAcceptToolsLeavesOutBadNamesM1: a tool whose name is empty, holds a
// '/' or a control or format character, is over-long or repeated, or whose
// schema is not an object, is left out with the server, the tool and why;
// the others are kept in order.
func TestAcceptToolsLeavesOutBadNamesM1(t *testing.T) {
	kept, left := catalog.AcceptTools("odd", badTools())
	var names []string
	for _, k := range kept {
		names = append(names, k.Name)
	}
	if !slices.Equal(names, []string{"good_one", "good-two"}) || kept[0].Description != "first listing" {
		t.Errorf("kept %q (first %q), want good_one (its first listing) and good-two", names, kept[0].Description)
	}
	if len(left) != 8 {
		t.Fatalf("%d left out, want 8: %v", len(left), left)
	}
	for _, want := range []string{`"a/b"`, `"bell\a"`, `"bidi\u202eexe"`, `""`, `"   "`, `"xxxxxxxx`, `"good_one"`, `"bad_schema"`} {
		found := false
		for _, l := range left {
			s := l.String()
			found = found || (strings.Contains(s, want) && strings.Contains(s, "server odd") && l.Server == "odd" && l.Why != "")
		}
		if !found {
			t.Errorf("no left-out entry names tool %s with server odd and why: %v", want, left)
		}
	}
	for _, l := range left {
		if strings.ContainsAny(l.String(), "\x07\u202e") || len(l.String()) > 300 {
			t.Errorf("warning not safe to print: %q", l.String())
		}
	}
}

// TestSetServerKeepsGoodToolsM1: a server whose list holds bad tools is
// registered with its good ones, by SetServer and by SetTools: one bad
// tool never costs the server (or a command) the rest.
func TestSetServerKeepsGoodToolsM1(t *testing.T) {
	c := catalog.New()
	if err := c.SetServer(catalog.Server{ID: "odd", Connected: true}, badTools()); err != nil {
		t.Fatalf("SetServer: %v", err)
	}
	want := []string{"mcp:odd/good-two", "mcp:odd/good_one"}
	got := func() []string {
		var ids []string
		for _, cp := range c.View().Capabilities() {
			ids = append(ids, cp.ID)
		}
		return ids
	}
	if g := got(); !slices.Equal(g, want) {
		t.Errorf("after SetServer: %v, want %v", g, want)
	}
	if err := c.SetTools("odd", append(badTools(), catalog.SnapshotTool{Name: "third"}), true); err != nil {
		t.Fatalf("SetTools: %v", err)
	}
	if g := got(); !slices.Equal(g, append(want, "mcp:odd/third")) {
		t.Errorf("after SetTools: %v", g)
	}
	snap := &catalog.Snapshot{MCPServers: []catalog.SnapshotServer{{Name: "odd", Tools: badTools()}}}
	c2 := catalog.New()
	if err := c2.LoadSnapshot(snap); err != nil {
		t.Fatalf("LoadSnapshot: %v", err)
	}
	if n := len(c2.View().Capabilities()); n != 2 {
		t.Errorf("LoadSnapshot kept %d tools, want 2", n)
	}
}
