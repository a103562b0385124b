package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// TestNeedsAttentionNotRecordedIsSaidP4X4: when a command finds a plugin's
// sign-in gone but the store cannot record that (here: its record is
// missing), the command says so, and that catalog list and route still
// show the plugin connected, besides how to renew the sign-in.
func TestNeedsAttentionNotRecordedIsSaidP4X4(t *testing.T) {
	e, as, _ := installSignedIn(t)
	db, err := sqlstore.Open(context.Background(), app.DBPath(mustConfig(t, e)))
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
	e, _, _ := installSignedIn(t)
	// The keyring's folder is unreachable while the command runs: a file
	// stands where the folder was.
	dir := app.KeyringDir(mustConfig(t, e))
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
