package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakeoauth"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlite"
)

// stateRefused is the real store refusing every plugin state, as a full
// disk or a locked file would.
type stateRefused struct {
	*sqlite.DB
}

func (stateRefused) SetPluginState(context.Context, string, store.PluginState) error {
	return errors.New("disk I/O error")
}

// TestPluginStateFollowsItsServerP4X4 pins the service's OnState callback:
// a plugin's server coming up records the plugin connected, a sign-in that
// needs attention records that and warns once; and when the store refuses
// the write, the log says so with the plugin, the server and the state, in
// place of a state left silently wrong for catalog list and route.
func TestPluginStateFollowsItsServerP4X4(t *testing.T) {
	attention := fmt.Errorf("server acme: %w", signin.ErrNeedsAttention)
	srv := mcphost.Server{Name: "acme", Plugin: "acme"}
	cases := []struct {
		name    string
		refuse  bool
		st      mcphost.State
		err     error
		want    store.PluginState
		wantLog []string
	}{
		{name: "up", st: mcphost.StateUp, want: store.PluginConnected},
		{name: "needs attention", st: mcphost.StateDown, err: attention, want: store.PluginNeedsAttention,
			wantLog: []string{"level=WARN", "needs attention", "plugin=acme"}},
		{name: "up, not recorded", refuse: true, st: mcphost.StateUp, want: store.PluginInstalled,
			wantLog: []string{"level=ERROR", "could not be recorded", "plugin=acme", "server=acme", "state=connected", "disk I/O error"}},
		{name: "needs attention, not recorded", refuse: true, st: mcphost.StateDown, err: attention, want: store.PluginInstalled,
			wantLog: []string{"level=ERROR", "could not be recorded", "plugin=acme", "state=needs-attention", "still show it as connected", "disk I/O error", "level=WARN"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "j.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := db.InstallPlugin(ctx, "acme", store.PluginInstalled); err != nil {
				t.Fatal(err)
			}
			var states pluginStates = db
			if c.refuse {
				states = stateRefused{db}
			}
			var logs bytes.Buffer
			onState := pluginStateRecorder(states, slog.New(slog.NewTextHandler(&logs, nil)))
			onState(srv, c.st, c.err)
			p, err := db.InstalledPlugin(ctx, "acme")
			if err != nil || p.State != c.want {
				t.Errorf("plugin %+v, %v; want state %s", p, err, c.want)
			}
			for _, w := range c.wantLog {
				if !strings.Contains(logs.String(), w) {
					t.Errorf("log %q lacks %q", logs.String(), w)
				}
			}
			if len(c.wantLog) == 0 && logs.Len() > 0 {
				t.Errorf("log %q, want none", logs.String())
			}
		})
	}
}

// TestNeedsAttentionNotRecordedIsSaidP4X4: when a command finds a plugin's
// sign-in gone but the store cannot record that (here: its record is
// missing), the command says so, and that catalog list and route still
// show the plugin connected, besides how to renew the sign-in.
func TestNeedsAttentionNotRecordedIsSaidP4X4(t *testing.T) {
	as := fakeoauth.NewAuthServer(t)
	pm := fakeoauth.NewProtectedMCP(t, as)
	e := newTestEnv(t)
	if code, out, errOut := signInAs(t, e, as, "plugins", "install", writePlugin(t, pm.URL), "--yes"); code != 0 {
		t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
	}
	db, err := sqlite.Open(context.Background(), dbPath(mustConfig(t, e)))
	if err != nil {
		t.Fatal(err)
	}
	err = db.RemovePlugin(context.Background(), "acme")
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	as.Revoke(grantOf(t, e, "acme").Token.RefreshToken)
	code, _, errOut := e.jarvis(t, "", "mcp", "call", "acme", "whoami")
	for _, want := range []string{"needs attention", "jarvisbot plugins signin acme", "could not be recorded", "plugin acme is not installed"} {
		if code == 0 || !strings.Contains(errOut, want) {
			t.Errorf("a call after revocation: exit %d, %q lacks %q", code, errOut, want)
		}
	}
}

// TestPluginRemoveSaysWhenItsSignInStaysP3X3: when the keyring cannot be
// reached, `plugins remove` still removes the plugin, but fails and says
// that its sign-in stays in the keyring and how to delete it, instead of
// reporting it forgotten; the sign-in is indeed still there.
func TestPluginRemoveSaysWhenItsSignInStaysP3X3(t *testing.T) {
	as := fakeoauth.NewAuthServer(t)
	pm := fakeoauth.NewProtectedMCP(t, as)
	e := newTestEnv(t)
	if code, out, errOut := signInAs(t, e, as, "plugins", "install", writePlugin(t, pm.URL), "--yes"); code != 0 {
		t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
	}
	// The keyring's folder is unreachable while the command runs: a file
	// stands where the folder was.
	dir := keyringDir(mustConfig(t, e))
	if err := os.Rename(dir, dir+".away"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := e.jarvis(t, "", "plugins", "remove", "acme")
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dir+".away", dir); err != nil {
		t.Fatal(err)
	}
	if code == 0 || strings.Contains(out, "forgotten") {
		t.Errorf("plugins remove with the keyring away: exit %d, %q; want a failure, not 'forgotten'", code, out)
	}
	for _, want := range []string{"removed acme", "sign-in stays in the keyring", "jarvisbot secrets delete signin:acme"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("plugins remove says %q, lacking %q", errOut, want)
		}
	}
	if _, list, _ := e.jarvis(t, "", "plugins", "list", "--json"); strings.Contains(list, `"name":"acme"`) {
		t.Errorf("acme is still listed after remove: %s", list)
	}
	grantOf(t, e, "acme") // still in the keyring, as said
}
