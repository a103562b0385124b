package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/app/assembly"
)

// TestCatalogExportFileWrittenOrSaidX4: `catalog export -o FILE` writes a
// snapshot that reads back; a file that cannot be written (a full disk)
// fails the command with the file's name, never a success with a file
// cut short.
func TestCatalogExportFileWrittenOrSaidX4(t *testing.T) {
	e := newTestEnv(t)
	out := filepath.Join(t.TempDir(), "snap.json")
	e.mustJarvis(t, "", "catalog", "export", "--cached", "-o", out)
	if _, err := assembly.ReadSnapshotFile(out); err != nil {
		t.Fatalf("the exported snapshot does not read back: %v", err)
	}
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here to stand for a full disk")
	}
	code, _, errOut := e.jarvis(t, "", "catalog", "export", "--cached", "-o", "/dev/full")
	if code == 0 || !strings.Contains(errOut, "writing /dev/full") {
		t.Errorf("export to a full disk: exit %d %q, want a failure naming the file", code, errOut)
	}
}
