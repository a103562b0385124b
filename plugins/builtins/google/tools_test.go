package google

import (
	"encoding/json"
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/native"
)

// checkTools checks a plugin's tools: exactly the names want holds, each
// with its tier, a description, a Run, and a schema that is a JSON object.
func checkTools(t *testing.T, tools []native.Tool, want map[string]catalog.Tier) {
	t.Helper()
	if len(tools) != len(want) {
		t.Errorf("%d tools, want %d", len(tools), len(want))
	}
	for _, tl := range tools {
		tier, ok := want[tl.Name]
		if !ok {
			t.Errorf("unexpected tool %s", tl.Name)
			continue
		}
		if tl.Tier != tier {
			t.Errorf("%s: tier %s, want %s", tl.Name, tl.Tier, tier)
		}
		var schema map[string]any
		if err := json.Unmarshal([]byte(tl.Schema), &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s: schema is not a JSON object schema: %v", tl.Name, err)
		}
		if tl.Description == "" || tl.Run == nil {
			t.Errorf("%s: no description or no Run", tl.Name)
		}
	}
}

// TestCalendarToolsTiersAndSchemas_P6_C2: the tools a person uses, each
// with its tier (reading safe; cancelling, inviting, moving with guests:
// ask) and a schema that is JSON the model can fill, closed to unknown
// arguments like Decode.
func TestCalendarToolsTiersAndSchemas_P6_C2(t *testing.T) {
	want := map[string]catalog.Tier{
		"list_events":           catalog.TierSafe,
		"free_busy":             catalog.TierSafe,
		"create_event":          catalog.TierMonitor,
		"invite_guests":         catalog.TierAsk,
		"move_event":            catalog.TierAsk,
		"cancel_event":          catalog.TierAsk,
		"respond_to_invitation": catalog.TierMonitor,
	}
	tools := CalendarTools(Options{})
	checkTools(t, tools, want)
	for _, tl := range tools {
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
			Additional *bool                      `json:"additionalProperties"`
		}
		if err := json.Unmarshal([]byte(tl.Schema), &schema); err != nil {
			continue // checkTools said so
		}
		if schema.Additional == nil || *schema.Additional {
			t.Errorf("%s: schema is not a closed object: %s", tl.Name, tl.Schema)
		}
		for name, p := range schema.Properties {
			var prop struct {
				Description string `json:"description"`
			}
			if json.Unmarshal(p, &prop) != nil || prop.Description == "" {
				t.Errorf("%s: property %s has no description", tl.Name, name)
			}
		}
		for _, r := range schema.Required {
			if _, ok := schema.Properties[r]; !ok {
				t.Errorf("%s: required %s is not a property", tl.Name, r)
			}
		}
	}
}
