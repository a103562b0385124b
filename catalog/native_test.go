package catalog_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog"
)

// calendarPlugin is a built-in plugin's native tools as the catalog holds
// them: kind plugin, served like a server named after the plugin.
func calendarPlugin(t *testing.T, c *catalog.Catalog, connected bool) {
	t.Helper()
	caps := []catalog.Capability{
		{ID: "plugin:google-calendar/list_events", Kind: catalog.KindPlugin, Name: "list_events", Description: "List the events in a time range of the owner's calendar", Tier: catalog.TierSafe},
		{ID: "plugin:google-calendar/cancel_event", Kind: catalog.KindPlugin, Name: "cancel_event", Description: "Cancel an event and tell its guests", Tier: catalog.TierAsk},
	}
	srv := catalog.Server{ID: "google-calendar", Title: "Google Calendar", Plugin: "google-calendar",
		Card: []string{"calendar", "appointment", "meeting"}, Connected: connected}
	if err := c.SetPluginTools(srv, caps); err != nil {
		t.Fatal(err)
	}
}

// TestNativePluginToolsAreGatedLikeAServer (P6, C5): a built-in plugin's
// tools reach a turn through the gate by the plugin's words, keep their
// own tiers, leave the turn when the sign-in needs attention, match
// plugin:NAME in allow and block lists, and are not exported.
func TestNativePluginToolsAreGatedLikeAServer(t *testing.T) {
	c := seedWithBuiltins(t)
	calendarPlugin(t, c, true)
	v := c.View()
	var turn catalog.Turn

	pl := v.Plan(catalog.Policy{Agent: "default"})
	pl.Turn("what appointments do I have on Friday?", &turn)
	got := ids(turn.Tools)
	if !slices.Contains(got, "plugin:google-calendar/list_events") || !slices.Contains(got, "plugin:google-calendar/cancel_event") {
		t.Errorf("a calendar question did not offer the calendar's tools: %v", got)
	}
	if cp, _ := v.Capability("plugin:google-calendar/cancel_event"); cp.Tier != catalog.TierAsk {
		t.Errorf("cancel_event tier %s, want ask", cp.Tier)
	}
	pl.Turn("open a pull request with the fix", &turn)
	if got := ids(turn.Tools); slices.ContainsFunc(got, func(id string) bool { return strings.HasPrefix(id, "plugin:google-calendar/") }) {
		t.Errorf("a GitHub message offered the calendar: %v", got)
	}

	blocked := v.Plan(catalog.Policy{Agent: "a", Block: []string{"plugin:google-calendar"}})
	blocked.Turn("what appointments do I have on Friday?", &turn)
	if got := ids(turn.Tools); slices.Contains(got, "plugin:google-calendar/list_events") {
		t.Errorf("plugin:google-calendar in the block-list did not block its tools: %v", got)
	}

	for _, s := range mustSnapshot(t, v).MCPServers {
		if s.Name == "google-calendar" {
			t.Error("the snapshot exports a built-in plugin's tools as an MCP server")
		}
	}

	calendarPlugin(t, c, false) // the sign-in needs attention (P4)
	v = c.View()
	v.Plan(catalog.Policy{Agent: "default"}).Turn("what appointments do I have on Friday?", &turn)
	if got := ids(turn.Tools); slices.Contains(got, "plugin:google-calendar/list_events") {
		t.Errorf("tools of a plugin whose sign-in needs attention were offered: %v", got)
	}
}

// TestSetPluginToolsRefusesForeignIDs: a tool must sit under its plugin.
func TestSetPluginToolsRefusesForeignIDs(t *testing.T) {
	c := catalog.New()
	err := c.SetPluginTools(catalog.Server{ID: "gmail"}, []catalog.Capability{{ID: "plugin:spotify/play", Kind: catalog.KindPlugin, Name: "play"}})
	if err == nil {
		t.Fatal("a tool of another plugin was accepted")
	}
}
