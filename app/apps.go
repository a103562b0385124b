package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/appkey"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/names"
	"github.com/jarvisbot/jarvisbot/store"
)

// CheckNewApp checks what adding an app takes, before the store is
// opened: its name and the scope of its key.
func CheckNewApp(name, scope string) (appkey.Scope, error) {
	if err := names.ValidApp(name); err != nil {
		return "", err
	}
	return appkey.ParseScope(scope)
}

// AddedApp is an app just added, with the key shown this once.
type AddedApp struct {
	Name  string
	Scope appkey.Scope
	// Key is shown this once: the store keeps only its hash, so it cannot
	// be shown again.
	Key string
	// Endpoint is where the app reaches jarvisbot's MCP surface.
	Endpoint string
}

// AddApp makes the key of a new app that uses jarvisbot's MCP surface,
// with the scope it allows, and keeps its hash (M4).
func (in *Installation) AddApp(ctx context.Context, name, scope string) (AddedApp, error) {
	sc, err := CheckNewApp(name, scope)
	if err != nil {
		return AddedApp{}, err
	}
	key := appkey.NewKey()
	if err := in.DB.AddApp(ctx, store.App{Name: name, Scope: string(sc), KeyHash: appkey.Hash(key)}); err != nil {
		return AddedApp{}, err
	}
	return AddedApp{Name: name, Scope: sc, Key: key, Endpoint: MCPEndpoint(in.Config)}, nil
}

// MCPEndpoint is where apps reach jarvisbot's MCP surface: the configured
// address (the default one when it is off, for the day it is on), https
// when serve terminates TLS itself.
func MCPEndpoint(cfg config.Config) string {
	addr := cfg.MCPServer.Addr()
	if addr == "" {
		addr = config.DefaultMCPListen
	}
	u := appkey.Endpoint(addr)
	if cfg.MCPServer.TLSCert != "" {
		u = "https://" + strings.TrimPrefix(u, "http://")
	}
	return u
}

// AppClientConfig is an MCP client's config for an app.
type AppClientConfig struct {
	App     store.App
	Snippet appkey.Snippet
}

// AppClientConfig writes the config snippet that connects client to
// jarvisbot as the live app name. The key is not in it: only AddApp ever
// shows a key.
func (in *Installation) AppClientConfig(ctx context.Context, name, client string) (AppClientConfig, error) {
	found, err := in.ActiveApp(ctx, name)
	if err != nil {
		return AppClientConfig{}, err
	}
	f := appkey.ConfigFor{App: name, URL: MCPEndpoint(in.Config), Command: jarvisbotCommand()}
	if p := in.Env.Getenv(config.EnvConfig); p != "" {
		// A client that launches `jarvisbot mcp serve` does not start in
		// the owner's shell: tell it which config names the service.
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		f.Env = map[string]string{config.EnvConfig: p}
	}
	sn, err := appkey.ClientConfig(client, f)
	if err != nil {
		return AppClientConfig{}, err
	}
	return AppClientConfig{App: found, Snippet: sn}, nil
}

// jarvisbotCommand is how a client launches this jarvisbot: its own path
// when it runs as jarvisbot (clients such as Claude Desktop do not see the
// shell's PATH), else the name.
func jarvisbotCommand() string {
	if exe, err := os.Executable(); err == nil && filepath.Base(exe) == "jarvisbot" {
		return exe
	}
	return "jarvisbot"
}

// ListApps are the apps that use jarvisbot's MCP surface, revoked ones
// too, each with its scope and when it was created, last used and
// revoked (M4).
func (in *Installation) ListApps(ctx context.Context) ([]store.App, error) {
	return in.DB.Apps(ctx)
}

// AppRow is one app as `apps list --json` gives it (a documented shape:
// keep its fields and names). No key or hash is in it.
type AppRow struct {
	Name     string    `json:"name"`
	Scope    string    `json:"scope"`
	Created  time.Time `json:"created"`
	LastUsed time.Time `json:"last_used,omitzero"`
	Revoked  time.Time `json:"revoked,omitzero"`
}

// AppRows are apps as rows, in order; never nil.
func AppRows(list []store.App) []AppRow {
	rows := make([]AppRow, 0, len(list))
	for _, ap := range list {
		rows = append(rows, AppRow{Name: ap.Name, Scope: ap.Scope, Created: ap.CreatedAt, LastUsed: ap.LastUsedAt, Revoked: ap.RevokedAt})
	}
	return rows
}

// ActiveApp is the app named name, or ENOTFOUND when there is none or it
// was revoked: what a client's config can be made for.
func (in *Installation) ActiveApp(ctx context.Context, name string) (store.App, error) {
	list, err := in.DB.Apps(ctx)
	if err != nil {
		return store.App{}, err
	}
	for _, ap := range list {
		if ap.Name == name && !ap.Revoked() {
			return ap, nil
		}
	}
	return store.App{}, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no app named %s, or it was revoked (see jarvisbot apps list; add it with jarvisbot apps add %s)", name, name)
}

// RevokedApp is what revoking an app did.
type RevokedApp struct {
	Name string
	// Revoked: its key is refused from the next request on.
	Revoked bool
	// PausedEverything: the app had paused every agent (pause_all). It
	// cannot resume any more, so the pause stays until the owner lifts it,
	// unless the revoke did (Resumed).
	PausedEverything bool
	// Resumed is the pause as it was before the revoke lifted it; nil
	// when it did not.
	Resumed *PauseState
}

// RevokeApp revokes the app's key and, with resume, lifts the pause the
// app set with pause_all, if it did (X5). A pause someone else set stays.
func (in *Installation) RevokeApp(ctx context.Context, name string, resume bool) (RevokedApp, error) {
	out := RevokedApp{Name: name}
	if err := in.DB.RevokeApp(ctx, name); err != nil {
		return out, err
	}
	out.Revoked = true
	paused, by, _, err := in.DB.Paused(ctx)
	if err != nil || !paused || by != "app "+name {
		return out, err
	}
	out.PausedEverything = true
	if !resume {
		return out, nil
	}
	before, err := SwitchPause(ctx, in.DB, false)
	if err != nil {
		return out, fmt.Errorf("app %s is revoked, but its pause could not be lifted: %w; run jarvisbot resume", name, err)
	}
	out.Resumed = &before
	return out, nil
}
