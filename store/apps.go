package store

import (
	"context"
	"time"
)

// App is another program (Claude Desktop, Cursor, a second jarvisbot) that
// reaches jarvisbot's MCP surface with a key of its own (M4). The key itself
// is shown once when the app is added and never kept: KeyHash is the hex
// SHA-256 of it, which is enough to recognise the key and useless to
// anyone who reads the database.
type App struct {
	Name string
	// Scope is what the key allows: read, work or full.
	Scope   string
	KeyHash string
	// CreatedAt is set by the store; LastUsedAt and RevokedAt are zero
	// until the key is first used or revoked.
	CreatedAt, LastUsedAt, RevokedAt time.Time
}

// Revoked reports whether the app's key was revoked.
func (a App) Revoked() bool { return !a.RevokedAt.IsZero() }

// Apps stores the apps that may use jarvisbot's MCP surface.
type Apps interface {
	// AddApp records an app with its key's hash: ECONFLICT when an app of
	// that name is live (not revoked); a revoked name may be added again.
	// EINVALID for a bad name, scope or hash.
	AddApp(ctx context.Context, a App) error
	// AppByKeyHash returns the app whose key has that hash, revoked or
	// not (RevokedAt says), or ENOTFOUND.
	AppByKeyHash(ctx context.Context, hash string) (App, error)
	// Apps returns every app sorted by name, revoked ones included.
	Apps(ctx context.Context) ([]App, error)
	// RevokeApp revokes the live app of that name: ENOTFOUND when there is
	// none (unknown, or revoked already).
	RevokeApp(ctx context.Context, name string) error
	// TouchApp records that the live app of that name was used at at:
	// ENOTFOUND when there is none.
	TouchApp(ctx context.Context, name string, at time.Time) error
}
