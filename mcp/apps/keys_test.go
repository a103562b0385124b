package apps

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/appkey"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/mcp/surface"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

func openDB(t *testing.T) *sqlstore.DB {
	t.Helper()
	db, err := sqlstore.Open(context.Background(), filepath.Join(t.TempDir(), "j.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// addApp adds an app with a new key and returns the key.
func addApp(t *testing.T, db *sqlstore.DB, name, scope string) string {
	t.Helper()
	key := appkey.NewKey()
	if err := db.AddApp(context.Background(), store.App{Name: name, Scope: scope, KeyHash: appkey.Hash(key)}); err != nil {
		t.Fatal(err)
	}
	return key
}

// TestCheckRefusesNoneWrongAndRevokedKeysM4: no key, a wrong key, a
// malformed one and a revoked one are refused with EFORBIDDEN; wrong and
// revoked keys get the same words, so no caller learns which names exist;
// a live key stands for its app with its scope.
func TestCheckRefusesNoneWrongAndRevokedKeysM4(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	keys := New(db, clock.NewFake(time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)), Rate{})
	reader, worker, owner := addApp(t, db, "reader", "read"), addApp(t, db, "worker", "work"), addApp(t, db, "owner", "full")
	revoked := addApp(t, db, "gone", "full")
	if err := db.RevokeApp(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key  string
		want surface.Caller
	}{
		{reader, surface.Caller{App: "reader", Scope: surface.ScopeRead}},
		{worker, surface.Caller{App: "worker", Scope: surface.ScopeWork}},
		{owner, surface.Caller{App: "owner", Scope: surface.ScopeFull}},
	} {
		got, err := keys.Check(ctx, tc.key)
		if err != nil || got != tc.want {
			t.Errorf("Check(key of %s) = %+v, %v; want %+v", tc.want.App, got, err, tc.want)
		}
	}
	if _, err := keys.Check(ctx, ""); jarvisbot.ErrorCode(err) != jarvisbot.EFORBIDDEN || !strings.Contains(err.Error(), "Authorization: Bearer") {
		t.Errorf("no key: %v, want EFORBIDDEN saying how to send one", err)
	}
	var said []string
	for name, key := range map[string]string{
		"wrong":     appkey.NewKey(),
		"revoked":   revoked,
		"malformed": "Bearer " + reader,
		"truncated": reader[:len(reader)-1],
		"hash":      appkey.Hash(reader),
	} {
		_, err := keys.Check(ctx, key)
		if jarvisbot.ErrorCode(err) != jarvisbot.EFORBIDDEN {
			t.Errorf("%s key: %v, want EFORBIDDEN", name, err)
			continue
		}
		if !strings.Contains(err.Error(), "revoked or is unknown") || strings.Contains(err.Error(), "gone") {
			t.Errorf("%s key: %q: want the one answer for unknown and revoked keys, naming no app", name, err)
		}
		said = append(said, err.Error())
	}
	for _, s := range said {
		if s != said[0] {
			t.Errorf("refusals differ: %q and %q", s, said[0])
		}
	}
}

// TestRevokeTakesEffectOnTheNextRequestM4: a key checked a moment ago is
// refused on the very next request after its app is revoked.
func TestRevokeTakesEffectOnTheNextRequestM4(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	keys := New(db, clock.NewFake(time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)), Rate{})
	key := addApp(t, db, "cursor", "work")
	if _, err := keys.Check(ctx, key); err != nil {
		t.Fatal(err)
	}
	if err := db.RevokeApp(ctx, "cursor"); err != nil {
		t.Fatal(err)
	}
	if _, err := keys.Check(ctx, key); jarvisbot.ErrorCode(err) != jarvisbot.EFORBIDDEN {
		t.Errorf("after revoke: %v, want EFORBIDDEN", err)
	}
	again := addApp(t, db, "cursor", "read")
	if c, err := keys.Check(ctx, again); err != nil || c.Scope != surface.ScopeRead {
		t.Errorf("the new key of a re-added app: %+v %v", c, err)
	}
	if _, err := keys.Check(ctx, key); jarvisbot.ErrorCode(err) != jarvisbot.EFORBIDDEN {
		t.Errorf("the old key after the name was added again: %v, want EFORBIDDEN", err)
	}
}

// TestCheckRateLimitsEachAppM4: an app that spends its burst is refused
// with EUNAVAILABLE saying when to try again, other apps are not, and
// time refills the bucket.
func TestCheckRateLimitsEachAppM4(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	clk := clock.NewFake(time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC))
	keys := New(db, clk, Rate{PerSecond: 10, Burst: 30})
	busy, calm := addApp(t, db, "busy", "work"), addApp(t, db, "calm", "read")
	for i := range 30 {
		if _, err := keys.Check(ctx, busy); err != nil {
			t.Fatalf("request %d of the burst: %v", i+1, err)
		}
	}
	_, err := keys.Check(ctx, busy)
	if jarvisbot.ErrorCode(err) != jarvisbot.EUNAVAILABLE || !strings.Contains(err.Error(), "rate limited: try again in 1 s") {
		t.Fatalf("past the burst: %v, want EUNAVAILABLE rate limited: try again in 1 s", err)
	}
	var ra surface.RetryAfterError
	if !errors.As(err, &ra) || ra.RetryAfter() != 100*time.Millisecond {
		t.Errorf("the refusal does not say to wait 100ms (surface.RetryAfterError): %v", err)
	}
	if _, err := keys.Check(ctx, calm); err != nil {
		t.Errorf("another app is limited too: %v", err)
	}
	clk.Advance(100 * time.Millisecond)
	if _, err := keys.Check(ctx, busy); err != nil {
		t.Errorf("after 100ms: %v, want one more request allowed", err)
	}
	if _, err := keys.Check(ctx, busy); jarvisbot.ErrorCode(err) != jarvisbot.EUNAVAILABLE {
		t.Errorf("the refilled token spent: %v, want EUNAVAILABLE", err)
	}
	clk.Advance(time.Hour) // the bucket holds at most the burst
	for i := range 30 {
		if _, err := keys.Check(ctx, busy); err != nil {
			t.Fatalf("after an hour, request %d: %v", i+1, err)
		}
	}
	if _, err := keys.Check(ctx, busy); jarvisbot.ErrorCode(err) != jarvisbot.EUNAVAILABLE {
		t.Errorf("the bucket grew past its burst: %v", err)
	}
}

// TestCheckRecordsLastUseAtMostOnceAMinuteM4: the first request records
// the app's last use; requests within a minute write nothing more; one a
// minute later records again.
func TestCheckRecordsLastUseAtMostOnceAMinuteM4(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	start := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	clk := clock.NewFake(start)
	keys := New(db, clk, Rate{})
	key := addApp(t, db, "codex", "read")
	lastUsed := func() time.Time {
		t.Helper()
		a, err := db.AppByKeyHash(ctx, appkey.Hash(key))
		if err != nil {
			t.Fatal(err)
		}
		return a.LastUsedAt
	}
	if !lastUsed().IsZero() {
		t.Fatal("used before any request")
	}
	for _, step := range []struct {
		advance time.Duration
		want    time.Time
	}{
		{0, start},
		{30 * time.Second, start},
		{29 * time.Second, start},
		{time.Second, start.Add(time.Minute)},
		{10 * time.Second, start.Add(time.Minute)},
	} {
		clk.Advance(step.advance)
		if _, err := keys.Check(ctx, key); err != nil {
			t.Fatal(err)
		}
		if got := lastUsed(); !got.Equal(step.want) {
			t.Errorf("at %v: last used %v, want %v", clk.Now().Sub(start), got, step.want)
		}
	}
}

// TestCheckRateLimitHoldsUnderConcurrentRequestsM4: requests arriving
// together spend the bucket exactly: of 50 at one instant with a burst of
// 30, 30 pass.
func TestCheckRateLimitHoldsUnderConcurrentRequestsM4(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	keys := New(db, clock.NewFake(time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)), Rate{PerSecond: 10, Burst: 30})
	key := addApp(t, db, "burst", "read")
	results := make(chan error, 50)
	for range 50 {
		go func() {
			_, err := keys.Check(ctx, key)
			results <- err
		}()
	}
	passed, limited := 0, 0
	for range 50 {
		switch err := <-results; jarvisbot.ErrorCode(err) {
		case "":
			passed++
		case jarvisbot.EUNAVAILABLE:
			limited++
		default:
			t.Errorf("unexpected refusal: %v", err)
		}
	}
	if passed != 30 || limited != 20 {
		t.Errorf("%d passed, %d limited; want 30 and 20", passed, limited)
	}
}

// TestCheckStoreFailureIsUnavailableAndNamesNoFileM4: when the store
// cannot be read, the app is told to try again (EUNAVAILABLE), and the
// message it sees does not name the database file.
func TestCheckStoreFailureIsUnavailableAndNamesNoFileM4(t *testing.T) {
	db := openDB(t)
	keys := New(db, clock.NewFake(time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)), Rate{})
	key := addApp(t, db, "late", "read")
	db.Close()
	_, err := keys.Check(context.Background(), key)
	if jarvisbot.ErrorCode(err) != jarvisbot.EUNAVAILABLE || strings.Contains(err.Error(), db.Path()) || !strings.Contains(err.Error(), "try again") {
		t.Errorf("closed store: %v, want EUNAVAILABLE saying to try again and naming no file", err)
	}
}
