package clitool

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// TestFindAndRunStoredToolP5: the stored tools are listed by name, and a
// stored tool is found by its name and run
// with the owner's arguments as they are, its environment references
// resolved at run time; a name that is not stored is ENOTFOUND with where
// to look.
func TestFindAndRunStoredToolP5(t *testing.T) {
	ctx := context.Background()
	sh := tool(t, "sh")
	db, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "jarvisbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.AddCLITool(ctx, store.CLITool{Name: "sh", Path: sh.Path, Env: map[string]string{"GREETING": "${HELLO}"}}); err != nil {
		t.Fatal(err)
	}
	if err := db.AddCLITool(ctx, store.CLITool{Name: "true", Path: tool(t, "true").Path}); err != nil {
		t.Fatal(err)
	}
	all, err := Stored(ctx, db)
	if err != nil || len(all) != 2 || all["sh"].Path != sh.Path || all["true"].Name != "true" {
		t.Fatalf("Stored: %+v (%v), want sh and true by name", all, err)
	}
	found, err := Find(ctx, db, "sh")
	if err != nil || found.Path != sh.Path || found.Env["GREETING"] != "${HELLO}" {
		t.Fatalf("Find: %+v (%v)", found, err)
	}
	lookup := func(name string) (string, bool) { return "hi there", name == "HELLO" }
	out, err := found.Run(ctx, []string{"-c", `printf '%s|%s' "$GREETING" "$1"`, "sh", "a b; $x"}, lookup)
	if err != nil || !strings.HasPrefix(out, "exit status 0") || !strings.HasSuffix(out, "\nhi there|a b; $x") {
		t.Errorf("run: %q (%v)", out, err)
	}
	if _, err := Find(ctx, db, "gh"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND || err.Error() != "no CLI tool named gh (see jarvisbot cli list)" {
		t.Errorf("a tool not stored: %v", err)
	}
}
