// Package mcptestbin builds the in-repo MCP test server
// (internal/fakes/mcptestserver) once per test binary, for the tests of
// every package that adds or reaches MCP servers as the owner would.
//
// It serves the tests of M1–M3.
package mcptestbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	once  sync.Once
	built string
	err   error
)

// Path is the built test server's path; the test fails when it cannot be
// built.
func Path(t testing.TB) string {
	t.Helper()
	once.Do(func() {
		var dir string
		if dir, err = os.MkdirTemp("", "jarvisbot-mcptest"); err != nil {
			return
		}
		built = filepath.Join(dir, "mcptestserver")
		var out []byte
		if out, err = exec.Command("go", "build", "-o", built, "github.com/jarvisbot/jarvisbot/internal/fakes/mcptestserver").CombinedOutput(); err != nil {
			t.Logf("%s", out)
		}
	})
	if err != nil {
		t.Fatalf("build the MCP test server: %v", err)
	}
	return built
}
