package signin_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/plugins/signin"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// TestPluginSignInSwitchesItsServersOnP3: a plugin's browser sign-in
// tells the link, waits for the owner's return, and then marks the
// plugin connected and switches on its servers (only its own); a sign-in
// that cannot start leaves the plugin as it was and says how to retry.
func TestPluginSignInSwitchesItsServersOnP3(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, setup{})
	db, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "jarvisbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.InstallPlugin(ctx, plugin, store.PluginInstalled); err != nil {
		t.Fatal(err)
	}
	for _, s := range []store.MCPServer{{Name: "gh", URL: e.mcp.URL, Transport: "streamable-http", Plugin: plugin}, {Name: "mine", Command: "x", Transport: "stdio"}} {
		if err := db.AddMCPServer(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	p := signin.Plugin{Name: plugin, DisplayName: "GitHub", URL: e.mcp.URL}
	told := 0
	err = e.m.SignIn(ctx, db, p, func(link string) {
		told++
		if st, body := e.callback(e.as.Approve(link)); st != http.StatusOK {
			t.Errorf("callback: %d %s", st, body)
		}
	})
	if err != nil || told != 1 {
		t.Fatalf("sign-in: %v (link told %d times)", err, told)
	}
	if ip, err := db.InstalledPlugin(ctx, plugin); err != nil || ip.State != store.PluginConnected {
		t.Errorf("plugin state %+v (%v), want connected", ip, err)
	}
	for name, on := range map[string]bool{"gh": true, "mine": false} {
		if s, err := db.MCPServer(ctx, name); err != nil || s.Enabled != on {
			t.Errorf("server %s on=%v (%v), want %v", name, s.Enabled, err, on)
		}
	}

	p.URL = "http://127.0.0.1:1/mcp"
	err = e.m.SignIn(ctx, db, p, func(string) { t.Error("a link was told for a sign-in that did not start") })
	if err == nil || !strings.Contains(err.Error(), "could not start") || !strings.Contains(err.Error(), "jarvisbot plugins signin "+plugin) {
		t.Errorf("sign-in to a server that is not there: %v", err)
	}
}
