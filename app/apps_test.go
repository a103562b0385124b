package app

import (
	"context"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/appkey"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestRevokeAppLiftsOnlyItsOwnPauseX5: a revoked app's key is gone from
// the active apps; its pause stays unless the owner asks to lift it, and
// a pause the owner set is never lifted by a revoke.
func TestRevokeAppLiftsOnlyItsOwnPauseX5(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	for name, hash := range map[string]string{"ops": strings.Repeat("a", 64), "cursor": strings.Repeat("b", 64)} {
		if err := in.DB.AddApp(ctx, store.App{Name: name, Scope: "full", KeyHash: hash}); err != nil {
			t.Fatal(err)
		}
	}
	if err := in.DB.SetPaused(ctx, true, "app ops"); err != nil {
		t.Fatal(err)
	}
	r, err := in.RevokeApp(ctx, "ops", false)
	if err != nil || !r.Revoked || !r.PausedEverything || r.Resumed != nil {
		t.Fatalf("revoke without resume: %+v, %v", r, err)
	}
	if st, _ := in.Pause(ctx); !st.Paused {
		t.Errorf("the app's pause was lifted without --resume")
	}
	if _, err := in.ActiveApp(ctx, "ops"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("a revoked app is active: %v", err)
	}
	if list, err := in.ListApps(ctx); err != nil || len(list) != 2 {
		t.Errorf("list: %+v, %v; want both, the revoked one too", list, err)
	}

	// The owner's own pause stays when another app is revoked.
	if _, err := in.ResumeAll(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := in.PauseAll(ctx); err != nil {
		t.Fatal(err)
	}
	r, err = in.RevokeApp(ctx, "cursor", true)
	if err != nil || r.PausedEverything || r.Resumed != nil {
		t.Errorf("revoking an app that did not pause: %+v, %v", r, err)
	}
	if st, _ := in.Pause(ctx); !st.Paused || st.By != OwnerPauser {
		t.Errorf("the owner's pause after a revoke: %+v", st)
	}
}

// TestRevokeAppResumesX5: with resume, the pause the revoked app set is
// lifted, and the result says how it stood.
func TestRevokeAppResumesX5(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	if err := in.DB.AddApp(ctx, store.App{Name: "ops", Scope: "full", KeyHash: strings.Repeat("a", 64)}); err != nil {
		t.Fatal(err)
	}
	if err := in.DB.SetPaused(ctx, true, "app ops"); err != nil {
		t.Fatal(err)
	}
	r, err := in.RevokeApp(ctx, "ops", true)
	if err != nil || r.Resumed == nil || r.Resumed.By != "app ops" {
		t.Fatalf("revoke with resume: %+v, %v", r, err)
	}
	if st, _ := in.Pause(ctx); st.Paused {
		t.Errorf("still paused after revoke --resume")
	}
	if _, err := in.RevokeApp(ctx, "nobody", false); err == nil {
		t.Errorf("revoking an unknown app succeeded")
	}
}

// TestAddAppKeepsOnlyTheKeysHashM4: AddApp returns the key once, with its
// scope and the endpoint; the store holds the key's hash, by which the
// app is found, and bad names, scopes and duplicates are refused.
func TestAddAppKeepsOnlyTheKeysHashM4(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	ad, err := in.AddApp(ctx, "laptop", "WORK")
	if err != nil {
		t.Fatal(err)
	}
	if ad.Name != "laptop" || ad.Scope != appkey.ScopeWork || !appkey.Shaped(ad.Key) || ad.Endpoint != "http://127.0.0.1:8765/mcp" {
		t.Errorf("added: %+v", ad)
	}
	got, err := in.DB.AppByKeyHash(ctx, appkey.Hash(ad.Key))
	if err != nil || got.Name != "laptop" || got.Scope != "work" || got.KeyHash == ad.Key {
		t.Errorf("stored: %+v, %v", got, err)
	}
	for _, tc := range []struct{ name, scope string }{{"laptop", "read"}, {"bad name!", "read"}, {"desk", "admin"}} {
		if _, err := in.AddApp(ctx, tc.name, tc.scope); err == nil {
			t.Errorf("AddApp(%q, %q) passed", tc.name, tc.scope)
		}
	}
}

// TestAppClientConfigNamesTheConfigAndNoKeyM4: the snippet is for a live
// app only, points at the endpoint, tells a launched jarvisbot which
// config to read, and never holds a key.
func TestAppClientConfigNamesTheConfigAndNoKeyM4(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	env := *in.Env
	env.Getenv = func(k string) string {
		if k == config.EnvConfig {
			return "/etc/jarvisbot/config.yaml"
		}
		return in.Env.Getenv(k)
	}
	in.Env = &env
	ad, err := in.AddApp(ctx, "desk", "read")
	if err != nil {
		t.Fatal(err)
	}
	c, err := in.AppClientConfig(ctx, "desk", appkey.ClientClaudeDesktop)
	if err != nil {
		t.Fatal(err)
	}
	if c.App.Scope != "read" || strings.Contains(c.Snippet.Text, ad.Key) || !strings.Contains(c.Snippet.Text, "/etc/jarvisbot/config.yaml") {
		t.Errorf("config: %+v", c)
	}
	if c, err := in.AppClientConfig(ctx, "desk", appkey.ClientCursor); err != nil || !strings.Contains(c.Snippet.Text, ad.Endpoint) {
		t.Errorf("cursor config: %+v, %v", c, err)
	}
	if _, err := in.AppClientConfig(ctx, "desk", "emacs"); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("unknown client: %v", err)
	}
	if _, err := in.RevokeApp(ctx, "desk", false); err != nil {
		t.Fatal(err)
	}
	if _, err := in.AppClientConfig(ctx, "desk", appkey.ClientCursor); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("a revoked app's config: %v", err)
	}
}
