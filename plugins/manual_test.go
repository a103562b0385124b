package plugins

import (
	"testing"
	"testing/fstest"

	"github.com/jarvisbot/jarvisbot"
)

// TestManualS2 reads a plugin's manual and refuses one that claims another
// plugin.
func TestManualS2(t *testing.T) {
	manifest := `{"$schema":"https://agent-plugins.org/schemas/1.0.0/plugin.schema.json","name":"acme","version":"1.0.0","description":"Acme."}`
	good := "---\nname: acme\ndescription: Use Acme.\nmetadata:\n  jarvisbot.words: acme\n---\nRead first.\n"
	bad := "---\nname: acme\ndescription: Use Acme.\nmetadata:\n  jarvisbot.plugin: github\n---\nRead first.\n"
	for _, tt := range []struct {
		manual string
		code   jarvisbot.Code
	}{{good, ""}, {bad, jarvisbot.EINVALID}, {"", jarvisbot.ENOTFOUND}} {
		fsys := fstest.MapFS{"acme/plugin.json": {Data: []byte(manifest)}}
		if tt.manual != "" {
			fsys["acme/skills/acme/SKILL.md"] = &fstest.MapFile{Data: []byte(tt.manual)}
		}
		p, err := LoadFS(fsys, "acme")
		if err != nil {
			t.Fatal(err)
		}
		m, err := Manual(fsys, p)
		if got := jarvisbot.ErrorCode(err); got != tt.code && !(tt.code == "" && err == nil) {
			t.Errorf("manual %q: error %v, want code %q", tt.manual, err, tt.code)
		}
		if tt.code == "" && (m == nil || m.Plugin != "acme") {
			t.Errorf("manual: %+v", m)
		}
	}
}
