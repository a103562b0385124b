package spotify

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/native"
)

// describeCall is how the player's tools describe a call for its approval
// request (CH2), should the owner raise one to ask: what happens, then
// what plays, at what volume, on which device.
func describeCall(what string) func(context.Context, json.RawMessage) (catalog.Description, bool) {
	return func(_ context.Context, raw json.RawMessage) (catalog.Description, bool) {
		var a struct {
			URI      string `json:"uri"`
			Query    string `json:"query"`
			Playlist string `json:"playlist"`
			Percent  *int   `json:"percent"`
			Device   string `json:"device"`
		}
		if native.Decode(raw, &a) != nil {
			return catalog.Description{}, false
		}
		d := catalog.Description{What: what}
		add := func(label, v string) {
			if v != "" {
				d.Lines = append(d.Lines, catalog.Line{Label: label, Value: v})
			}
		}
		add("Item", a.URI)
		add("Search", a.Query)
		add("Playlist", a.Playlist)
		if a.Percent != nil {
			add("Volume", fmt.Sprintf("%d%%", *a.Percent))
		}
		add("Device", a.Device)
		return d, true
	}
}
