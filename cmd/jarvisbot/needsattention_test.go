package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
)

// grantOf reads a plugin's sign-in from the test environment's keyring.
func grantOf(t *testing.T, e *testEnv, plugin string) signin.Grant {
	t.Helper()
	kr, err := (&cli{Env: app.Env{Getenv: e.getenv}}).OpenSecrets(mustConfig(t, e))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := kr.Get(context.Background(), signin.KeyName(plugin))
	if err != nil {
		t.Fatal(err)
	}
	var g signin.Grant
	if err := json.Unmarshal([]byte(raw), &g); err != nil || g.Token == nil {
		t.Fatalf("the sign-in of %s in the keyring: %v", plugin, err)
	}
	return g
}

// TestNeedsAttentionHasNoToolsP4C7 pins that a plugin under Needs
// attention has no tools and no manual in the commands that assemble the
// catalog from the store, as in the running service (P4, C3 step 2): its
// remembered MCP tools are not connected in `catalog list`, `route` does
// not offer its server or switch its manual on and says how to renew the
// sign-in, and a renewed sign-in brings both back.
func TestNeedsAttentionHasNoToolsP4C7(t *testing.T) {
	e, as, _ := installSignedIn(t)
	// Connecting once keeps the server's tool list in the store, as the
	// service does: that is what the commands remember.
	if code, out, errOut := e.jarvis(t, "", "mcp", "list", "--check"); code != 0 || !strings.Contains(out, "up") {
		t.Fatalf("mcp list --check: exit %d %s %s", code, out, errOut)
	}
	const msg = "How many Acme widgets are left?"
	checkRoute := func(when string, offered bool) {
		t.Helper()
		code, out, errOut := e.jarvis(t, "", "route", "--json", msg)
		if code != 0 {
			t.Fatalf("%s: route: exit %d %s", when, code, errOut)
		}
		r := decodeRoutes(t, out)[0]
		var acme *string
		for _, m := range r.MCP {
			if m.Server == "acme" {
				if m.Offered != offered {
					t.Errorf("%s: route offers acme = %v, want %v (%s)", when, m.Offered, offered, m.Because)
				}
				acme = &m.Because
			}
		}
		if acme == nil {
			t.Fatalf("%s: route does not explain server acme: %s", when, out)
		}
		if !offered && !strings.Contains(*acme, "jarvisbot plugins signin acme") {
			t.Errorf("%s: route should say the sign-in needs renewing and how: %q", when, *acme)
		}
		tool := false
		for _, id := range r.Tools {
			tool = tool || id == "mcp:acme/whoami"
		}
		if tool != offered {
			t.Errorf("%s: mcp:acme/whoami among the tools = %v, want %v: %v", when, tool, offered, r.Tools)
		}
		manual := false
		for _, s := range r.Skills {
			manual = manual || (s.Plugin != nil && *s.Plugin == "acme")
		}
		if manual != offered {
			t.Errorf("%s: acme's manual matched = %v, want %v: %+v", when, manual, offered, r.Skills)
		}
	}
	checkList := func(when, want string) {
		t.Helper()
		_, out, errOut := e.jarvis(t, "", "catalog", "list")
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) > 0 && f[0] == "mcp:acme/whoami" {
				if got := strings.Join(f[2:], " "); got != want {
					t.Errorf("%s: catalog list shows mcp:acme/whoami %q, want %q", when, got, want)
				}
				return
			}
		}
		t.Errorf("%s: catalog list has no mcp:acme/whoami:\n%s%s", when, out, errOut)
	}
	checkList("signed in", "connected")
	checkRoute("signed in", true)

	// The owner revokes the app at the service; the next use finds out and
	// puts the plugin under Needs attention.
	_, raw, _ := e.jarvis(t, "", "plugins", "list", "--json")
	if !strings.Contains(raw, `"state":"connected"`) {
		t.Fatalf("plugins list before revocation: %s", raw)
	}
	as.Revoke(grantOf(t, e, "acme").Token.RefreshToken)
	if code, _, errOut := e.jarvis(t, "", "mcp", "call", "acme", "whoami"); code == 0 || !strings.Contains(errOut, "needs attention") {
		t.Fatalf("a call after revocation: exit %d %s", code, errOut)
	}
	if _, list, _ := e.jarvis(t, "", "plugins", "list", "--json"); !strings.Contains(list, `"state":"needs-attention"`) {
		t.Fatalf("plugins list after revocation: %s", list)
	}
	checkList("needs attention", "not connected")
	checkRoute("needs attention", false)
	if _, out, _ := e.jarvis(t, "", "route", msg); !strings.Contains(out, "jarvisbot plugins signin acme") {
		t.Errorf("route's text does not say how to renew the sign-in:\n%s", out)
	}

	if code, out, errOut := signInAs(t, e, as, "plugins", "signin", "acme"); code != 0 {
		t.Fatalf("renewal: exit %d\n%s\n%s", code, out, errOut)
	}
	checkList("renewed", "connected")
	checkRoute("renewed", true)
}
