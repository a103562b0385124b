package signin_test

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakeoauth"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
)

// signInWith runs a whole sign-in on m and returns the authorization URL.
func (e *env) signInWith(m *signin.Manager) string {
	e.t.Helper()
	authURL, err := m.Begin(context.Background(), plugin, e.mcp.URL, nil)
	if err != nil {
		e.t.Fatalf("Begin: %v", err)
	}
	if st, body := e.callback(e.as.Approve(authURL)); st != http.StatusOK {
		e.t.Fatalf("callback: %d %s", st, body)
	}
	if err := m.Wait(context.Background(), plugin); err != nil {
		e.t.Fatalf("Wait: %v", err)
	}
	if _, err := m.Token(context.Background(), plugin); err != nil {
		e.t.Fatalf("Token: %v", err)
	}
	return authURL
}

// TestOneClientPerPluginAndIssuerP3 pins that jarvisbot registers one
// client per plugin and authorization server and reuses it: across
// processes, whose loopback listeners get other ports (RFC 8252 §7.3), and
// until the server refuses it (invalid_client), when it registers again
// once. The registration is kept in the keyring and removed with the
// plugin's sign-in.
func TestOneClientPerPluginAndIssuerP3(t *testing.T) {
	e := newEnv(t, setup{})
	first := query(t, e.signInWith(e.m))
	if err := e.m.Close(); err != nil {
		t.Fatal(err)
	}
	// The next process cannot have the first one's port (if another
	// program took it meanwhile, it cannot either).
	u, _ := url.Parse(first.Get("redirect_uri"))
	if hold, err := net.Listen("tcp", u.Host); err == nil {
		defer hold.Close()
	}

	m2 := e.process()
	second := query(t, e.signInWith(m2))
	if second.Get("redirect_uri") == first.Get("redirect_uri") {
		t.Fatalf("both sign-ins used %s; the test needs two ports", first.Get("redirect_uri"))
	}
	if n := e.as.Registrations(); n != 1 || second.Get("client_id") != first.Get("client_id") {
		t.Fatalf("%d registrations, client %q then %q: want one client, reused", n, first.Get("client_id"), second.Get("client_id"))
	}
	names, err := e.ring.Names(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if key := signin.ClientKeyName(plugin, e.as.URL); !slices.Contains(names, key) {
		t.Errorf("the client registration is not in the keyring as %s: %v", key, names)
	}

	// The server forgets the client: the next sign-in registers again,
	// once, and the one after reuses the new client.
	e.as.RemoveClient(first.Get("client_id"))
	third := query(t, e.signInWith(m2))
	if n := e.as.Registrations(); n != 2 || third.Get("client_id") == first.Get("client_id") {
		t.Fatalf("after the server dropped the client: %d registrations, client %q", n, third.Get("client_id"))
	}
	fourth := query(t, e.signInWith(m2))
	if n := e.as.Registrations(); n != 2 || fourth.Get("client_id") != third.Get("client_id") {
		t.Fatalf("a sign-in after re-registering: %d registrations, client %q, want %q", n, fourth.Get("client_id"), third.Get("client_id"))
	}

	// Forgetting the plugin's sign-in removes its registration too.
	if err := m2.Forget(context.Background(), plugin); err != nil {
		t.Fatal(err)
	}
	if names, _ = e.ring.Names(context.Background()); slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "signin") }) {
		t.Errorf("Forget left %v in the keyring", names)
	}
}

// TestClientPrefersItsRegisteredPortP3 pins that a new process listens on
// the loopback port its client was registered with when that port is
// free, so servers that match redirect URIs exactly (ignoring RFC 8252
// §7.3) accept the reused client too.
func TestClientPrefersItsRegisteredPortP3(t *testing.T) {
	e := newEnv(t, setup{})
	first := query(t, e.signInWith(e.m))
	if err := e.m.Close(); err != nil {
		t.Fatal(err)
	}
	second := query(t, e.signInWith(e.process()))
	if second.Get("redirect_uri") != first.Get("redirect_uri") || e.as.Registrations() != 1 {
		t.Errorf("the second process used %s (%d registrations), want the registered %s", second.Get("redirect_uri"), e.as.Registrations(), first.Get("redirect_uri"))
	}
}

// TestClientRefusedAtRefreshP3P4 pins that a refresh refused with
// invalid_client ends the sign-in and drops the client registration, so
// that the renewal registers a new client.
func TestClientRefusedAtRefreshP3P4(t *testing.T) {
	e := newEnv(t, setup{as: []fakeoauth.Option{fakeoauth.WithAccessTokenLifetime(5 * time.Minute)}})
	first := query(t, e.signInWith(e.m))
	e.as.RemoveClient(first.Get("client_id"))
	e.clock.Advance(5 * time.Minute)
	_, err := e.token()
	needsAttention(t, err, "invalid_client")
	if _, err := e.ring.Get(context.Background(), signin.ClientKeyName(plugin, e.as.URL)); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("the refused client is still kept: %v", err)
	}
	again := query(t, e.signInWith(e.m))
	if n := e.as.Registrations(); n != 2 || again.Get("client_id") == first.Get("client_id") {
		t.Errorf("renewal after a refused client: %d registrations, client %q", n, again.Get("client_id"))
	}
}
