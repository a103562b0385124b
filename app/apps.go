package app

import (
	"context"
	"fmt"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// ListApps are the apps that use jarvisbot's MCP surface, revoked ones
// too, each with its scope and when it was created, last used and
// revoked (M4).
func (in *Installation) ListApps(ctx context.Context) ([]store.App, error) {
	return in.DB.Apps(ctx)
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
