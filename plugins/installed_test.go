package plugins

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

func openStore(t *testing.T) *sqlstore.DB {
	t.Helper()
	db, err := sqlstore.Open(context.Background(), filepath.Join(t.TempDir(), "jarvisbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestInstallAddsItsServersP2: installing records the plugin and its
// servers, marked as its own: off until a browser sign-in, on at once
// without one; a server the owner added by hand under the same name is
// kept as it is. Installing twice is ECONFLICT; removing takes the
// plugin's servers and leaves the owner's.
func TestInstallAddsItsServersP2(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name, method string
		on           bool
	}{{"oauth", SignInOAuth, false}, {"no sign-in", SignInNone, true}} {
		t.Run(c.name, func(t *testing.T) {
			db := openStore(t)
			files := fullFiles()
			files["plugin.json"] = strings.Replace(fullManifest, `{"method": "oauth", "scopes": ["repo", "read:org"]}`, `{"method": "`+c.method+`"}`, 1)
			p, err := Load(pluginDir(t, files))
			if err != nil {
				t.Fatal(err)
			}
			mine := store.MCPServer{Name: "local-helper", Transport: "stdio", Command: "mine", Enabled: true}
			if err := db.AddMCPServer(ctx, mine); err != nil {
				t.Fatal(err)
			}
			if err := Install(ctx, db, p); err != nil {
				t.Fatal(err)
			}
			added, err := AddServers(ctx, db, p)
			if err != nil || len(added) != 2 || added[0].ID != "github" || added[0].Kept || added[0].On != c.on || !added[1].Kept {
				t.Fatalf("added %+v (%v)", added, err)
			}
			s, err := db.MCPServer(ctx, "github")
			if err != nil || s.Plugin != "github" || s.Enabled != c.on || s.URL != "https://api.githubcopilot.com/mcp/" {
				t.Errorf("stored %+v (%v)", s, err)
			}
			if err := Install(ctx, db, p); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT || !strings.Contains(err.Error(), "plugins signin github") {
				t.Errorf("second install: %v, want ECONFLICT naming the sign-in", err)
			}
			if err := Uninstall(ctx, db, "github", false); err != nil {
				t.Fatal(err)
			}
			list, _ := db.MCPServers(ctx)
			if len(list) != 1 || list[0].Command != "mine" {
				t.Errorf("after removal the servers are %+v, want the owner's alone", list)
			}
			if err := Uninstall(ctx, db, "github", false); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
				t.Errorf("removing a plugin not installed: %v, want ENOTFOUND", err)
			}
			if err := Uninstall(ctx, db, "github", true); err != nil {
				t.Errorf("removing a local plugin's copy without a record: %v", err)
			}
		})
	}
}

// TestListAndSignInP2P3: the list says each plugin's kind, servers,
// sign-in and state; a browser sign-in is needed only with a hosted
// server to sign in to.
func TestListAndSignInP2P3(t *testing.T) {
	full, err := Load(pluginDir(t, fullFiles()))
	if err != nil {
		t.Fatal(err)
	}
	bare, err := Load(pluginDir(t, map[string]string{"plugin.json": "{" + schemaLine + `, "name": "github", "version": "1.0.0", "description": "d"}`}))
	if err != nil {
		t.Fatal(err)
	}
	rows := List(map[string]*Plugin{"github": full, "bare": bare}, []store.InstalledPlugin{{Name: "github", State: store.PluginNeedsAttention}})
	if len(rows) != 2 || rows[0].Name != "bare" || rows[0].State != NotInstalled || rows[0].Kind != "builtin" || rows[0].SignIn != "none" {
		t.Fatalf("rows %+v", rows)
	}
	if g := rows[1]; g.State != "needs-attention" || g.Kind != "mcp" || g.SignIn != SignInOAuth || !slices.Equal(g.MCP, []string{"https://api.githubcopilot.com/mcp/", "./bin/helper"}) {
		t.Errorf("github row %+v", g)
	}
	if !full.NeedsSignIn() || full.SignInURL() != "https://api.githubcopilot.com/mcp/" || bare.NeedsSignIn() {
		t.Errorf("needs sign-in: full %v (%q), bare %v", full.NeedsSignIn(), full.SignInURL(), bare.NeedsSignIn())
	}
	if got := full.Ext.SignIn.Text(); got != "OAuth in the browser, scopes repo read:org" {
		t.Errorf("sign-in text %q", got)
	}
	if got := (*SignIn)(nil).Text(); got != "no sign-in" {
		t.Errorf("no sign-in reads %q", got)
	}
}

// TestCopyFolderX1: a plugin folder is copied file by file, links left
// out (a link cannot lead the copy outside the folder), a bundled program
// stays executable by the owner alone; a folder over the limit is refused
// before anything is copied.
func TestCopyFolderX1(t *testing.T) {
	src := pluginDir(t, fullFiles())
	if err := os.Chmod(filepath.Join(src, "bin/helper"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("outside"), 0o600)
	symlink(t, outside, filepath.Join(src, "data/link.txt"))
	dst := t.TempDir()
	if err := CopyFolder(src, dst); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dst, "data/link.txt")); !os.IsNotExist(err) {
		t.Errorf("the link was copied: %v", err)
	}
	fi, err := os.Stat(filepath.Join(dst, "bin/helper"))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("bundled program: %v %v, want mode 0700", fi, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "skills/review/scripts/x.sh")); string(b) != "echo\n" {
		t.Errorf("copied file reads %q", b)
	}
	big := pluginDir(t, map[string]string{"plugin.json": fullManifest})
	f, _ := os.Create(filepath.Join(big, "huge.bin"))
	f.Truncate(FolderLimit().Max + 1)
	f.Close()
	empty := t.TempDir()
	if err := CopyFolder(big, empty); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("a folder over the limit: %v, want EINVALID", err)
	}
	if left, _ := os.ReadDir(empty); len(left) != 0 {
		t.Errorf("a refused copy wrote %d entries", len(left))
	}
}
