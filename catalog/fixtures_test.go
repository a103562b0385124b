package catalog_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog"
)

// fixture returns the path of a file in ../shared/fixtures beside the
// repository (CI has it there too), or skips when it is absent.
func fixture(t testing.TB, name string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "..", "shared", "fixtures", name)
	if dir := os.Getenv("JARVIS_FIXTURES"); dir != "" {
		p = filepath.Join(dir, name)
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("fixture %s not found (set JARVIS_FIXTURES): %v", name, err)
	}
	return p
}

func loadSnapshot(t testing.TB, name string) *catalog.Catalog {
	t.Helper()
	f, err := os.Open(fixture(t, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	snap, err := catalog.ReadSnapshot(f, name)
	if err != nil {
		t.Fatal(err)
	}
	c := catalog.New()
	if err := c.LoadSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	return c
}
