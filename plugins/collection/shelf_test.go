package collection

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/jarvisbot/jarvisbot"
)

// TestShelfReadsAsLoadP1S2: the shelf holds the plugins Load holds, the
// local ones included and left out alike, and each manual it reads is the
// one Load parsed; a plugin outside the collection has none.
func TestShelfReadsAsLoadP1S2(t *testing.T) {
	data := t.TempDir()
	writePlugin(t, data, "demo", "demo", true)
	writePlugin(t, data, "bare", "bare", false)
	writePlugin(t, data, "github", "github", true)
	writePlugin(t, data, "zz-demo-copy", "demo", true)
	if err := os.MkdirAll(filepath.Join(data, "plugins", "broken"), 0o700); err != nil {
		t.Fatal(err)
	}
	var loadWarn, shelfWarn bytes.Buffer
	all, err := Load(data, &loadWarn)
	if err != nil {
		t.Fatal(err)
	}
	shelf := NewShelf(data, &shelfWarn)
	if got, want := shelf.Plugins(), slices.Sorted(maps.Keys(all)); !slices.Equal(got, want) {
		t.Fatalf("shelf plugins %v, Load's %v", got, want)
	}
	if shelfWarn.String() != loadWarn.String() {
		t.Errorf("the shelf reports\n%s\nLoad reports\n%s", shelfWarn.String(), loadWarn.String())
	}
	for name, p := range all {
		m, err := shelf.Manual(name)
		if err != nil {
			t.Errorf("manual of %s: %v", name, err)
			continue
		}
		if !reflect.DeepEqual(m, p.Manual) {
			t.Errorf("the shelf's manual of %s differs from Load's", name)
		}
		if again, _ := shelf.Manual(name); again != m {
			t.Errorf("the manual of %s was read twice", name)
		}
	}
	if _, err := shelf.Manual("no-such-plugin"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("manual of a plugin outside the collection: %v, want not found", err)
	}
}
