// Package apps checks the keys of the apps that use jarvisbot's MCP
// surface (M4): the key a request carries (unknown and revoked keys
// refused alike, a rate limit per app, last use recorded). Making keys,
// their scopes and the clients' config snippets are internal/appkey's.
//
// A request's key flows: surface (Authorization: Bearer KEY) → Keys.Check
// → the store, looked up by hash on every request, so a revoke takes
// effect on the next one → the Caller the surface filters tools by.
package apps

import (
	"context"
	"crypto/subtle"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/appkey"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/mcp/surface"
	"github.com/jarvisbot/jarvisbot/store"
)

// Store is what Keys needs of the store.
type Store interface {
	AppByKeyHash(ctx context.Context, hash string) (store.App, error)
	TouchApp(ctx context.Context, name string, at time.Time) error
}

// Rate is the rate limit of each app's key: a token bucket refilled at
// PerSecond requests a second, holding at most Burst.
type Rate struct {
	PerSecond float64
	Burst     int
}

// DefaultRate lets an app make 10 requests a second, 30 at once: far more
// than a person's client needs, little enough that a runaway loop cannot
// keep the service busy.
func DefaultRate() Rate { return Rate{PerSecond: 10, Burst: 30} }

// touchEvery is how often at most a key's last use is written: a request
// costs one read; the write once a minute is enough for "last used".
const touchEvery = time.Minute

// Keys checks the keys of requests (surface.Keys). It keeps no copy of
// the store's apps: every Check reads the app by its key's hash, so a
// revoke takes effect on the next request.
type Keys struct {
	db    Store
	clock clock.Clock
	limit Rate

	mu sync.Mutex
	// keys holds each key's bucket and last recorded use, by key hash:
	// an app revoked and added again gets a new key and a fresh start.
	keys map[string]*keyState
}

type keyState struct {
	tokens  float64
	filled  time.Time // when tokens was last brought up to date
	touched time.Time // when the last use was last written
}

var _ surface.Keys = (*Keys)(nil)

// New returns the key checker over db, on clk (nil: the wall clock),
// limiting each key to limit (a zero Rate: DefaultRate).
func New(db Store, clk clock.Clock, limit Rate) *Keys {
	if clk == nil {
		clk = clock.Real{}
	}
	if limit.PerSecond <= 0 || limit.Burst <= 0 {
		limit = DefaultRate()
	}
	return &Keys{db: db, clock: clk, limit: limit, keys: map[string]*keyState{}}
}

// refused is the one answer to an unknown or revoked key: the same words
// for both, so that nobody can learn from it which names exist.
func refused() error {
	return jarvisbot.Errorf(jarvisbot.EFORBIDDEN, "this app key was revoked or is unknown: ask the owner for a new one (jarvisbot apps add NAME)")
}

// LimitError is the cause of a rate-limit refusal: Wait says when the key
// may try again (for an HTTP Retry-After).
type LimitError struct {
	App  string
	Wait time.Duration
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("app %s is over its rate limit for %s", e.App, e.Wait)
}

// RetryAfter is how long the key should wait: surface.RetryAfterError,
// so the surface's 429 carries it as Retry-After.
func (e *LimitError) RetryAfter() time.Duration { return e.Wait }

var _ surface.RetryAfterError = (*LimitError)(nil)

// Check returns the app a key stands for: EFORBIDDEN for no key, or one
// unknown or revoked; EUNAVAILABLE when the app is over its rate limit.
func (k *Keys) Check(ctx context.Context, key string) (surface.Caller, error) {
	if key == "" {
		return surface.Caller{}, jarvisbot.Errorf(jarvisbot.EFORBIDDEN, "no app key given: send the header Authorization: Bearer KEY (jarvisbot apps add NAME prints a key)")
	}
	if !appkey.Shaped(key) {
		return surface.Caller{}, refused() // not a key jarvisbot made: no need to ask the store
	}
	hash := appkey.Hash(key)
	app, err := k.db.AppByKeyHash(ctx, hash)
	switch {
	case jarvisbot.ErrorCode(err) == jarvisbot.ENOTFOUND:
		return surface.Caller{}, refused()
	case err != nil:
		return surface.Caller{}, unavailable("cannot check the app key now: try again shortly", err)
	}
	// The store matched on the hash already; comparing again in constant
	// time keeps a store that matches loosely (a prefix, a collation)
	// from letting a near key in, and leaks nothing through timing.
	if subtle.ConstantTimeCompare([]byte(app.KeyHash), []byte(hash)) != 1 {
		return surface.Caller{}, refused()
	}
	if app.Revoked() {
		k.forget(hash)
		return surface.Caller{}, refused()
	}
	scope, err := appkey.ParseScope(app.Scope)
	if err != nil {
		return surface.Caller{}, jarvisbot.Errorf(jarvisbot.EINTERNAL, "app %s has a scope this jarvisbot does not know (%q): revoke it and add it again", app.Name, app.Scope)
	}
	now := k.clock.Now()
	wait, touch := k.take(hash, now)
	if wait > 0 {
		secs := int(math.Ceil(wait.Seconds()))
		return surface.Caller{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "rate limited: try again in %d s (app %s may make %g requests a second, %d at once): %w",
			secs, app.Name, k.limit.PerSecond, k.limit.Burst, &LimitError{App: app.Name, Wait: wait})
	}
	if touch {
		if err := k.db.TouchApp(ctx, app.Name, now); err != nil {
			k.untouch(hash)
			if jarvisbot.ErrorCode(err) == jarvisbot.ENOTFOUND {
				return surface.Caller{}, refused() // revoked since the lookup
			}
			return surface.Caller{}, unavailable("cannot record the use of app "+app.Name+" now: try again shortly", err)
		}
	}
	return surface.Caller{App: app.Name, Scope: scope}, nil
}

// take spends one token of the key's bucket at now: it returns how long
// to wait when none is left, and whether the key's use is due to be
// written (marked as written: untouch undoes that when the write fails).
func (k *Keys) take(hash string, now time.Time) (wait time.Duration, touch bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	s, ok := k.keys[hash]
	if !ok {
		s = &keyState{tokens: float64(k.limit.Burst), filled: now}
		k.keys[hash] = s
	}
	if elapsed := now.Sub(s.filled); elapsed > 0 {
		s.tokens = math.Min(float64(k.limit.Burst), s.tokens+elapsed.Seconds()*k.limit.PerSecond)
	}
	s.filled = now
	if s.tokens < 1 {
		return time.Duration((1 - s.tokens) / k.limit.PerSecond * float64(time.Second)), false
	}
	s.tokens--
	if s.touched.IsZero() || now.Sub(s.touched) >= touchEvery {
		s.touched = now
		return 0, true
	}
	return 0, false
}

// unavailable is a store failure as the app sees it: what to do, with the
// store's own error (naming the database file) kept as the cause for logs
// and out of the message an app is shown.
func unavailable(msg string, cause error) error {
	return &jarvisbot.Error{Code: jarvisbot.EUNAVAILABLE, Message: msg, Err: cause}
}

// forget drops a revoked key's bucket: its key can never be used again.
func (k *Keys) forget(hash string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.keys, hash)
}

func (k *Keys) untouch(hash string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if s, ok := k.keys[hash]; ok {
		s.touched = time.Time{}
	}
}
