package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/plugins"

	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakeoauth"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
)

// writePlugin writes a plugin folder whose MCP server is the protected
// fake, signed in by OAuth.
func writePlugin(t *testing.T, url string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "acme")
	os.MkdirAll(filepath.Join(dir, "skills", "acme"), 0o700)
	os.WriteFile(filepath.Join(dir, "plugin.json"), []byte(`{"$schema":"https://agent-plugins.org/schemas/1.0.0/plugin.schema.json","name":"acme","version":"1.0.0","description":"Acme widgets.",
		"extensions":{"dev.jarvisbot":{"displayName":"Acme","signIn":{"method":"oauth","scopes":["widgets"]}}}}`), 0o600)
	os.WriteFile(filepath.Join(dir, "mcp.json"), []byte(`{"$schema":"https://agent-plugins.org/schemas/1.0.0/mcp.schema.json","mcpServers":{"acme":{"type":"streamable-http","url":"`+url+`"}}}`), 0o600)
	os.WriteFile(filepath.Join(dir, "skills", "acme", "SKILL.md"), []byte("---\nname: acme\ndescription: Use when the owner asks about Acme widgets.\nmetadata:\n  jarvisbot.plugin: acme\n  jarvisbot.words: widget, Acme\n  jarvisbot.words-de: Widget\n  jarvisbot.tier: monitor\n  jarvisbot.does: tools\n---\nRead first.\n"), 0o600)
	return dir
}

// signInAs runs a command that prints a sign-in link, opens the link as
// the owner's browser would (the fake approves at once) and returns the
// command's exit code and output.
// installSignedIn is a test environment with the plugin acme (an MCP
// server behind OAuth) installed and signed in; it returns the
// environment, the authorization server and the server.
func installSignedIn(t *testing.T) (*testEnv, *fakeoauth.AuthServer, *fakeoauth.ProtectedMCP) {
	t.Helper()
	as := fakeoauth.NewAuthServer(t)
	pm := fakeoauth.NewProtectedMCP(t, as)
	e := newTestEnv(t)
	if code, out, errOut := signInAs(t, e, as, "plugins", "install", writePlugin(t, pm.URL), "--yes"); code != 0 {
		t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
	}
	return e, as, pm
}

func signInAs(t *testing.T, e *testEnv, as *fakeoauth.AuthServer, args ...string) (int, string, string) {
	t.Helper()
	pr, pw := io.Pipe()
	var errb strings.Builder
	done := make(chan int, 1)
	go func() {
		code := run(context.Background(), args, e.app(strings.NewReader(""), pw, &errb))
		pw.Close()
		done <- code
	}()
	var out strings.Builder
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		line := sc.Text()
		out.WriteString(line + "\n")
		if l := strings.TrimSpace(line); strings.HasPrefix(l, "http") && strings.Contains(l, "code_challenge") {
			go func() {
				redirect := as.Approve(l)
				resp, err := http.Get(redirect)
				if err != nil {
					t.Errorf("callback: %v", err)
					return
				}
				resp.Body.Close()
			}()
		}
	}
	select {
	case code := <-done:
		return code, out.String(), errb.String()
	case <-time.After(30 * time.Second):
		t.Fatal("the command did not finish")
	}
	return 0, "", ""
}

// TestPluginSignInP3P4: installing a plugin signs in with OAuth (DCR,
// PKCE), its server is reached with the token from the keyring, a revoked
// sign-in needs attention, and a renewal brings it back. No token reaches
// the database or any output.
func TestPluginSignInP3P4(t *testing.T) {
	as := fakeoauth.NewAuthServer(t)
	pm := fakeoauth.NewProtectedMCP(t, as)
	e := newTestEnv(t)
	code, out, errOut := signInAs(t, e, as, "plugins", "install", writePlugin(t, pm.URL), "--yes")
	if code != 0 || !strings.Contains(out, "Sign in to Acme in your browser") || !strings.Contains(out, "Signed in to Acme") {
		t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
	}
	if as.Registrations() != 1 {
		t.Errorf("%d client registrations", as.Registrations())
	}
	code, out, errOut = e.jarvis(t, "", "mcp", "call", "acme", "whoami")
	if code != 0 {
		t.Fatalf("call with the sign-in: exit %d %s %s", code, out, errOut)
	}
	_, list, _ := e.jarvis(t, "", "plugins", "list", "--json")
	if !strings.Contains(list, `"name":"acme"`) || !strings.Contains(list, `"state":"connected"`) {
		t.Errorf("plugins list: %s", list)
	}
	// The owner revokes the app at the service: the next use needs attention.
	kr, err := (&cli{Env: app.Env{Getenv: e.getenv}}).OpenSecrets(mustConfig(t, e))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := kr.Get(context.Background(), signin.KeyName("acme"))
	if err != nil {
		t.Fatal(err)
	}
	var g signin.Grant
	if err := json.Unmarshal([]byte(raw), &g); err != nil || g.Token == nil || g.Token.RefreshToken == "" {
		t.Fatalf("grant in the keyring: %v", err)
	}
	as.Revoke(g.Token.RefreshToken)
	code, _, errOut = e.jarvis(t, "", "mcp", "call", "acme", "whoami")
	if code == 0 || !strings.Contains(errOut, "needs attention") || !strings.Contains(errOut, "plugins signin acme") {
		t.Errorf("after revocation: exit %d %s", code, errOut)
	}
	_, list, _ = e.jarvis(t, "", "plugins", "list")
	if !strings.Contains(list, "Needs attention:") || !strings.Contains(list, "acme") {
		t.Errorf("plugins list after revocation:\n%s", list)
	}
	code, out, errOut = signInAs(t, e, as, "plugins", "signin", "acme")
	if code != 0 || !strings.Contains(out, "Signed in") {
		t.Fatalf("renewal: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut := e.jarvis(t, "", "mcp", "call", "acme", "whoami"); code != 0 {
		t.Errorf("after renewal: %s", errOut)
	}
	if n := as.Registrations(); n != 1 {
		t.Errorf("the renewal registered a new client (%d registrations): it should reuse the plugin's client", n)
	}
	// No secret the authorization server issued is in the database.
	db, _ := os.ReadFile(filepath.Join(e.vars["JARVIS_DATA_DIR"], "jarvisbot.db"))
	wal, _ := os.ReadFile(filepath.Join(e.vars["JARVIS_DATA_DIR"], "jarvisbot.db-wal"))
	if len(as.Secrets()) == 0 {
		t.Error("the authorization server issued no secret: the check below would find none")
	}
	for _, s := range as.Secrets() {
		if len(s) > 8 && (strings.Contains(string(db), s) || strings.Contains(string(wal), s) || strings.Contains(out, s)) {
			t.Errorf("a secret reached the database or the output")
		}
	}
	var rows []plugins.Listed
	_, list, _ = e.jarvis(t, "", "plugins", "list", "--json")
	json.Unmarshal([]byte(list), &rows)
	if code, _, _ := e.jarvis(t, "", "plugins", "remove", "acme"); code != 0 {
		t.Error("remove")
	}
}

func mustConfig(t *testing.T, e *testEnv) config.Config {
	t.Helper()
	cfg, err := config.Load(e.getenv)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
