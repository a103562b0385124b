package builtins_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakegoogle"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakeoauth"
	"github.com/jarvisbot/jarvisbot/plugins/builtins"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
	"github.com/jarvisbot/jarvisbot/store/secrets"
)

const (
	calendarScope = "https://www.googleapis.com/auth/calendar"
	mailScope     = "https://www.googleapis.com/auth/gmail.modify"
)

// google is a fake Google: an authorization server with the owner's
// Desktop client, and the APIs accepting only its live tokens.
type google struct {
	as  *fakeoauth.AuthServer
	api *fakegoogle.Server
	env builtins.Env
}

func newGoogle(t *testing.T) *google {
	as := fakeoauth.NewAuthServer(t)
	as.AddConfidentialClient("desktop-id", "desktop-secret")
	as.AddResource("")
	api := fakegoogle.New(t, fakegoogle.WithAuth(func(tok string) bool { _, _, ok := as.Introspect(tok); return ok }))
	ring, err := secrets.Open(secrets.Options{Backend: "file", Dir: t.TempDir(), Password: func() (string, error) { return "test", nil }})
	if err != nil {
		t.Fatal(err)
	}
	m := signin.NewManager(signin.Options{Keyring: ring})
	t.Cleanup(func() { m.Close() })
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	client := builtins.Client{ID: "desktop-id", SecretName: "GOOGLE_OAUTH_CLIENT_SECRET", AuthURL: as.URL + "/authorize", TokenURL: as.URL + "/token", APIEndpoint: api.URL + "/"}
	env := builtins.Env{Google: client, Zone: berlin, Signin: m, Lookup: func(name string) (string, bool) {
		return "desktop-secret", name == "GOOGLE_OAUTH_CLIENT_SECRET"
	}}
	return &google{as: as, api: api, env: env}
}

// signIn signs in under grant with scopes, approving as the owner would.
func (g *google) signIn(t *testing.T, grant string, scopes ...string) {
	t.Helper()
	p, err := g.env.Provider("gmail")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	link, err := g.env.Signin.BeginProvider(ctx, grant, p, scopes)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(g.as.Approve(link))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := g.env.Signin.Wait(ctx, grant); err != nil {
		t.Fatal(err)
	}
}

func capOf(t *testing.T, id string) *catalog.Capability {
	t.Helper()
	plugin, _, _ := strings.Cut(strings.TrimPrefix(id, "plugin:"), "/")
	for _, cp := range builtins.Capabilities(plugin, true) {
		if cp.ID == id {
			return &cp
		}
	}
	t.Fatalf("no capability %s", id)
	return nil
}

// TestOneGoogleSignInServesThePluginsItCoversP3P6: a shared Google sign-in
// with the union of scopes serves Calendar and Gmail; a plugin whose
// scopes it lacks is not served by it; when the sign-in is revoked the
// call fails needing attention and the service hears of it; a 401 alone
// is repaired by one refresh.
func TestOneGoogleSignInServesThePluginsItCoversP3P6(t *testing.T) {
	g := newGoogle(t)
	ctx := context.Background()
	g.api.AddEvent("primary", fakegoogle.CalendarEvent{Summary: "Dentist", Start: time.Now().Add(2 * time.Hour), End: time.Now().Add(3 * time.Hour)})
	g.api.AddMessage(fakegoogle.Message{From: "ana@example.com", To: fakegoogle.DefaultMailAddress, Subject: "Lunch on Friday?", Date: time.Now(), Plain: "Shall we?", Labels: []string{"INBOX", "UNREAD"}})
	g.signIn(t, builtins.SharedGoogle, calendarScope, mailScope)

	var mu sync.Mutex
	var heard []string
	scopes := map[string][]string{"google-calendar": {calendarScope}, "gmail": {mailScope}, "google-drive": {"drive"}}
	r := builtins.Runner{Env: g.env, Scopes: func(p string) []string { return scopes[p] },
		Attention: func(_ context.Context, plugin string, err error) {
			mu.Lock()
			defer mu.Unlock()
			heard = append(heard, plugin)
		}}
	run := func(id string) (string, error) {
		out, err := r.Run(ctx, catalog.Call{Cap: capOf(t, id), Args: json.RawMessage(`{}`)})
		return out.Text, err
	}
	if out, err := run("plugin:google-calendar/list_events"); err != nil || !strings.Contains(out, "Dentist") {
		t.Fatalf("list_events through the shared sign-in: %q, %v", out, err)
	}
	if out, err := run("plugin:gmail/search_mail"); err != nil || !strings.Contains(out, "Lunch on Friday?") {
		t.Fatalf("search_mail through the shared sign-in: %q, %v", out, err)
	}
	if _, err := run("plugin:google-drive/list_folder"); !errors.Is(err, signin.ErrNeedsAttention) {
		t.Errorf("Drive, whose scope the shared sign-in lacks: %v, want ErrNeedsAttention", err)
	}
	grant, ok, err := g.env.Grant(ctx, "gmail", []string{mailScope})
	if err != nil || !ok || grant != builtins.SharedGoogle {
		t.Errorf("Grant(gmail) = %q, %v, %v", grant, ok, err)
	}

	// Google refuses the access token (401): it is refreshed once and the
	// call goes through.
	tok, err := g.env.Signin.Token(ctx, builtins.SharedGoogle)
	if err != nil {
		t.Fatal(err)
	}
	g.as.Revoke(tok)
	before := len(g.as.TokenRequests())
	if out, err := run("plugin:google-calendar/list_events"); err != nil || !strings.Contains(out, "Dentist") {
		t.Fatalf("list_events after a 401: %q, %v", out, err)
	}
	if n := len(g.as.TokenRequests()) - before; n != 1 {
		t.Errorf("%d token requests after the 401, want one refresh", n)
	}

	// The owner removes jarvisbot's access at Google.
	if tok, err = g.env.Signin.Token(ctx, builtins.SharedGoogle); err != nil {
		t.Fatal(err)
	}
	g.as.Revoke(tok)
	for _, rt := range refreshTokens(t, g) {
		g.as.Revoke(rt)
	}
	if _, err := run("plugin:google-calendar/list_events"); !errors.Is(err, signin.ErrNeedsAttention) {
		t.Fatalf("a call after the sign-in was revoked: %v, want ErrNeedsAttention", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(heard, "google-calendar") || !slices.Contains(heard, "google-drive") {
		t.Errorf("the service heard of %v needing attention, want google-calendar and google-drive", heard)
	}
}

// refreshTokens are the refresh tokens the fake issued so far.
func refreshTokens(t *testing.T, g *google) []string {
	t.Helper()
	var out []string
	for _, s := range g.as.Secrets() {
		if strings.HasPrefix(s, "rt-") {
			out = append(out, s)
		}
	}
	return out
}

// TestGoogleUnionP3: one Google sign-in asks for every Google plugin's
// scopes once, on top of what it already holds, and serves only Google's.
func TestGoogleUnionP3(t *testing.T) {
	plugins, union := builtins.GoogleUnion(map[string][]string{
		"google-calendar": {calendarScope}, "gmail": {mailScope, calendarScope}, "spotify": {"user-read-playback-state"},
	}, []string{"openid"})
	if !slices.Equal(plugins, []string{"gmail", "google-calendar", "google-drive"}) {
		t.Errorf("plugins %v", plugins)
	}
	if !slices.Equal(union, []string{"openid", mailScope, calendarScope}) {
		t.Errorf("union %v", union)
	}
}

// TestDescribeThroughTheSignInCH2: the runner describes a call for its
// approval request with the sign-in that serves the plugin, so the event a
// call names is read by its title; without a sign-in the call is still
// described, from its arguments.
func TestDescribeThroughTheSignInCH2(t *testing.T) {
	g := newGoogle(t)
	ctx := context.Background()
	id := g.api.AddEvent("primary", fakegoogle.CalendarEvent{Summary: "Dentist", Start: time.Now().Add(2 * time.Hour), End: time.Now().Add(3 * time.Hour)})
	r := &builtins.Runner{Env: g.env, Scopes: func(string) []string { return []string{calendarScope} }}
	call := catalog.Call{Cap: capOf(t, "plugin:google-calendar/cancel_event"), Args: json.RawMessage(`{"event_id":"` + id + `"}`)}
	if d, ok := r.Describe(ctx, call); !ok || d.What != "Cancel (delete) the event with id "+id {
		t.Errorf("before the sign-in: %+v %v", d, ok)
	}
	g.signIn(t, builtins.SharedGoogle, calendarScope, mailScope)
	if d, ok := r.Describe(ctx, call); !ok || d.What != `Cancel (delete) the event "Dentist"` {
		t.Errorf("signed in: %+v %v", d, ok)
	}
}
