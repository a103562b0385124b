package store

import (
	"context"
	"time"
)

// WebLogins keeps the dashboard's one-time sign-in links and the sessions
// they become (W1). Only SHA-256 hashes (hex) of links and session tokens
// are kept: a copy of the database lets no one in.
type WebLogins interface {
	// AddWebLink records a one-time link's hash, valid until expires.
	AddWebLink(ctx context.Context, hash string, expires time.Time) error
	// TakeWebLink uses up the link with that hash: true once, when it is
	// known, unused and not expired at now; false every other time.
	TakeWebLink(ctx context.Context, hash string, now time.Time) (bool, error)
	// AddWebSession records a session token's hash, valid until expires.
	AddWebSession(ctx context.Context, hash string, expires time.Time) error
	// WebSession reports whether a session with that hash is live at now.
	WebSession(ctx context.Context, hash string, now time.Time) (bool, error)
	// EndWebSession ends the session with that hash (signing out); ending
	// an unknown one is no error.
	EndWebSession(ctx context.Context, hash string) error
}
