package catalog_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog"
)

// TestStoredListReadWhenFirstNeededC1: a server registered with its stored
// tool list is known at once, but the list is read only when its tools
// are first needed (a view, a count), once; a list that replaces it
// (SetServer, SetTools) or its removal means it is never read, and what
// was changed before it was read (connected state, routing data, a tool
// added by id) holds as if it had been read at registration.
func TestStoredListReadWhenFirstNeededC1(t *testing.T) {
	live := []catalog.SnapshotTool{{Name: "live_tool", Description: "listed live"}}
	cases := []struct {
		name string
		do   func(c *catalog.Catalog) error
		// list is what the stored list reads as; nil for one that cannot
		// be decoded.
		list []catalog.SnapshotTool
		// readsBy is how often the list was read once do returned;
		// replaced says it is never read, not even by a view after.
		readsBy   int
		replaced  bool
		wantTools []string // the server's tool names in the view, in order
		check     func(t *testing.T, v *catalog.View)
	}{
		{name: "a view reads it once", list: badTools(), readsBy: 1,
			do:        func(c *catalog.Catalog) error { c.View(); c.View(); return nil },
			wantTools: []string{"good-two", "good_one"}},
		{name: "counting its tools reads it", list: badTools(), readsBy: 1,
			do: func(c *catalog.Catalog) error {
				if n := c.Tools("gh"); n != 2 {
					t.Errorf("Tools = %d, want the 2 the catalog takes", n)
				}
				return nil
			},
			wantTools: []string{"good-two", "good_one"}},
		{name: "listing the servers does not read it", list: badTools(), readsBy: 0, wantTools: []string{"good-two", "good_one"},
			do: func(c *catalog.Catalog) error {
				if s := c.Servers(); len(s) != 1 || s[0].ID != "gh" || !s[0].Trusted {
					t.Errorf("Servers = %+v, want gh as registered", s)
				}
				return nil
			}},
		{name: "a live list replaces it unread", list: badTools(), replaced: true,
			do:        func(c *catalog.Catalog) error { return c.SetTools("gh", live, true) },
			wantTools: []string{"live_tool"}},
		{name: "a new registration replaces it unread", list: badTools(), replaced: true,
			do: func(c *catalog.Catalog) error {
				return c.SetServer(catalog.Server{ID: "gh", Connected: true}, live)
			},
			wantTools: []string{"live_tool"}},
		{name: "a removed server's list is never read", list: badTools(), replaced: true,
			do: func(c *catalog.Catalog) error { c.RemoveServer("gh"); return nil },
			check: func(t *testing.T, v *catalog.View) {
				if _, ok := v.Server("gh"); ok {
					t.Error("the removed server is in the view")
				}
			}},
		{name: "disconnected before it is read", list: badTools(), readsBy: 0,
			do:        func(c *catalog.Catalog) error { return c.SetConnected("gh", false) },
			wantTools: []string{"good-two", "good_one"},
			check: func(t *testing.T, v *catalog.View) {
				for _, cp := range v.Capabilities() {
					if cp.Server == "gh" && cp.Connected {
						t.Errorf("%s is connected after its server was disconnected", cp.ID)
					}
				}
			}},
		{name: "routing data changed before it is read", list: badTools(), readsBy: 0,
			do: func(c *catalog.Catalog) error {
				return c.UpdateServer("gh", func(s *catalog.Server) { s.Card = []string{"repo"} })
			},
			wantTools: []string{"good-two", "good_one"},
			check: func(t *testing.T, v *catalog.View) {
				if s, _ := v.Server("gh"); !slices.Equal(s.Card, []string{"repo"}) {
					t.Errorf("card %q, want the one set before the list was read", s.Card)
				}
			}},
		{name: "a tool added by id before it is read wins", list: badTools(), readsBy: 1,
			do: func(c *catalog.Catalog) error {
				return c.Add(catalog.Capability{ID: "mcp:gh/good_one", Kind: catalog.KindMCP, Server: "gh", Tool: "good_one", Description: "added later", Connected: true})
			},
			wantTools: []string{"good-two", "good_one"},
			check: func(t *testing.T, v *catalog.View) {
				if cp, _ := v.Capability("mcp:gh/good_one"); cp.Description != "added later" {
					t.Errorf("description %q, want the one added after registering", cp.Description)
				}
			}},
		{name: "a list that cannot be decoded reads as none", list: nil, readsBy: 1,
			do: func(c *catalog.Catalog) error { c.View(); return nil }},
	}
	for _, tc := range cases {
		raw := `[{"name":` // a list that does not decode
		if tc.list != nil {
			b, err := json.Marshal(tc.list)
			if err != nil {
				t.Fatal(err)
			}
			raw = string(b)
		}
		// Its schemas held, as commands hold them, and left in the store
		// for a reread, as serve leaves them.
		for _, reread := range []catalog.Reread{nil, func(context.Context) ([]catalog.SnapshotTool, error) { return tc.list, nil }} {
			name := tc.name
			if reread != nil {
				name += ", schemas left in the store"
			}
			t.Run(name, func(t *testing.T) {
				c := catalog.New()
				reads := 0
				err := c.SetStoredServer(catalog.Server{ID: "gh", Trusted: true, Connected: true}, func() string {
					reads++
					return raw
				}, reread)
				if err != nil {
					t.Fatal(err)
				}
				if err := tc.do(c); err != nil {
					t.Fatal(err)
				}
				if reads != tc.readsBy {
					t.Fatalf("the stored list was read %d times, want %d", reads, tc.readsBy)
				}
				v := c.View()
				want := 1
				if tc.replaced {
					want = 0
				}
				if reads != want {
					t.Errorf("after a view the stored list was read %d times, want %d", reads, want)
				}
				var got []string
				for _, cp := range v.Capabilities() {
					if cp.Server == "gh" {
						got = append(got, cp.Tool)
					}
				}
				if !slices.Equal(got, tc.wantTools) {
					t.Errorf("tools %q, want %q", got, tc.wantTools)
				}
				if tc.check != nil {
					tc.check(t, v)
				}
			})
		}
	}
}

// TestStoredServerNameCheckedC1: a stored server is refused by the name
// rules SetServer applies, before anything is registered.
func TestStoredServerNameCheckedC1(t *testing.T) {
	c := catalog.New()
	if err := c.SetStoredServer(catalog.Server{ID: "bad/name"}, func() string { return "[]" }, nil); err == nil {
		t.Fatal("a server name with '/' was taken")
	}
	if len(c.Servers()) != 0 {
		t.Error("the refused server is listed")
	}
}
