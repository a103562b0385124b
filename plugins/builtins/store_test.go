package builtins_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/plugins/builtins"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/skills"
)

// channels are jarvisbot's chat channels (channels/telegram, channels/discord).
var channels = []string{"telegram", "discord"}

// TestStoreClaimsOnlyToolsThatExistP6 walks the shipped store: a plugin
// marked built in has native tools here, each with a capability id, a
// tier, a description and an object schema; a channel plugin brings
// neither tools nor a server and is one of the channels; every other
// plugin brings an MCP server; a manual that promises tools belongs to a
// plugin that has some; and no native tools exist for a plugin the store
// does not mark built in.
func TestStoreClaimsOnlyToolsThatExistP6(t *testing.T) {
	all, err := collection.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	for name, sp := range all {
		p := sp.Plugin
		caps := builtins.Capabilities(name, true)
		servers := 0
		if p.MCP != nil {
			servers = len(p.MCP.Servers)
		}
		switch {
		case p.Ext.Builtin:
			if !builtins.Has(name) || len(caps) == 0 {
				t.Errorf("%s: the store says its tools are built in, but jarvisbot has none", name)
			}
			if si := p.Ext.SignIn; si == nil || si.Method != plugins.SignInOAuth || len(si.Scopes) == 0 {
				t.Errorf("%s: a built-in plugin signs in with OAuth and names its scopes", name)
			}
			checkTools(t, name, caps)
		case p.Ext.Channel:
			if servers > 0 || len(caps) > 0 || !slices.Contains(channels, name) {
				t.Errorf("%s: a channel plugin is one of %v and brings no tools (%d servers, %d tools)", name, channels, servers, len(caps))
			}
		default:
			if servers == 0 {
				t.Errorf("%s: neither built in nor a channel, yet it brings no MCP server: nothing would give it tools", name)
			}
			if builtins.Has(name) {
				t.Errorf("%s: native tools exist, but the store does not mark it built in", name)
			}
		}
		if sp.Manual != nil && sp.Manual.Does == skills.KindTools && !p.Ext.Builtin && servers == 0 {
			t.Errorf("%s: its manual speaks of tools, but the plugin has none", name)
		}
		if strings.Contains(strings.ToLower(p.ConnectNote()), "built into jarvisbot") != p.Ext.Builtin {
			t.Errorf("%s: what installing it says (%q) does not match what it is", name, p.ConnectNote())
		}
	}
	for _, name := range builtins.Names() {
		if sp, ok := all[name]; !ok || !sp.Plugin.Ext.Builtin {
			t.Errorf("%s has native tools but no built-in plugin in the store", name)
		}
	}
}

func checkTools(t *testing.T, plugin string, caps []catalog.Capability) {
	t.Helper()
	c := catalog.New()
	if err := c.SetPluginTools(catalog.Server{ID: plugin, Plugin: plugin}, caps); err != nil {
		t.Errorf("%s: the catalog refuses its tools: %v", plugin, err)
	}
	for _, cp := range caps {
		var schema map[string]any
		if err := json.Unmarshal(cp.InputSchema, &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s: its input schema is not a JSON object schema: %v", cp.ID, err)
		}
		if _, err := catalog.ParseTier(string(cp.Tier)); err != nil || len(cp.Description) < 20 {
			t.Errorf("%s: tier %q, description %q", cp.ID, cp.Tier, cp.Description)
		}
	}
}

// TestRiskyToolsAskP6C2 pins the tiers the issue names: reading is safe,
// sending mail, cancelling and inviting guests wait for the owner.
func TestRiskyToolsAskP6C2(t *testing.T) {
	want := map[string]catalog.Tier{
		"plugin:google-calendar/list_events":   catalog.TierSafe,
		"plugin:google-calendar/cancel_event":  catalog.TierAsk,
		"plugin:google-calendar/invite_guests": catalog.TierAsk,
		"plugin:gmail/search_mail":             catalog.TierSafe,
		"plugin:gmail/send_mail":               catalog.TierAsk,
		"plugin:gmail/reply":                   catalog.TierAsk,
		"plugin:google-drive/read_file":        catalog.TierSafe,
		"plugin:spotify/now_playing":           catalog.TierSafe,
	}
	got := map[string]catalog.Tier{}
	for _, name := range builtins.Names() {
		for _, cp := range builtins.Capabilities(name, true) {
			got[cp.ID] = cp.Tier
		}
	}
	for id, tier := range want {
		if got[id] != tier {
			t.Errorf("%s: tier %q, want %q", id, got[id], tier)
		}
	}
}
