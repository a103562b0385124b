package sqlstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

func hashOf(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// TestAppsKeepTheHashNeverTheKeyM4: an app added with its key's hash is
// found by that hash and listed; the database file (with its WAL) holds
// the hash and never the key.
func TestAppsKeepTheHashNeverTheKeyM4(t *testing.T) {
	ctx := context.Background()
	path := testTarget(t)
	db := openTest(t, path)
	const key = "jbk_thisisthesecretkeythatmustneverbestored234567abcd"
	if err := db.AddApp(ctx, store.App{Name: "cursor", Scope: "work", KeyHash: hashOf(key)}); err != nil {
		t.Fatal(err)
	}
	a, err := db.AppByKeyHash(ctx, hashOf(key))
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "cursor" || a.Scope != "work" || a.KeyHash != hashOf(key) || a.CreatedAt.IsZero() || !a.LastUsedAt.IsZero() || a.Revoked() {
		t.Errorf("AppByKeyHash = %+v", a)
	}
	if _, err := db.AppByKeyHash(ctx, hashOf("jbk_other")); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("unknown hash: %v, want ENOTFOUND", err)
	}
	// A key passed where its hash belongs is refused, not stored.
	if err := db.AddApp(ctx, store.App{Name: "leak", Scope: "read", KeyHash: key}); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("a key as hash: %v, want EINVALID", err)
	}
	if onPostgres() {
		return // the scan below reads SQLite's file; PostgreSQL keeps the same rows
	}
	var file []byte
	for _, p := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		file = append(file, b...)
	}
	if bytes.Contains(file, []byte(key)) {
		t.Error("the database file holds the key")
	}
	if !bytes.Contains(file, []byte(hashOf(key))) {
		t.Error("the database file does not hold the key's hash: the scan reads the wrong file")
	}
}

// TestAppsRevokeAndAddAgainM4: a live name cannot be added twice; revoking
// keeps the app listed with the time, refuses a second revoke, and frees
// the name for a new app with a new key.
func TestAppsRevokeAndAddAgainM4(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	noon := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	db.now = func() time.Time { return noon }
	add := func(name, scope, key string) error {
		return db.AddApp(ctx, store.App{Name: name, Scope: scope, KeyHash: hashOf(key)})
	}
	if err := add("vscode", "read", "k1"); err != nil {
		t.Fatal(err)
	}
	if err := add("claude", "full", "k0"); err != nil {
		t.Fatal(err)
	}
	if err := add("vscode", "work", "k2"); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
		t.Errorf("second live vscode: %v, want ECONFLICT", err)
	}
	if err := db.RevokeApp(ctx, "vscode"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"vscode", "nobody"} {
		if err := db.RevokeApp(ctx, name); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
			t.Errorf("revoke %s: %v, want ENOTFOUND", name, err)
		}
	}
	if a, err := db.AppByKeyHash(ctx, hashOf("k1")); err != nil || !a.RevokedAt.Equal(noon) {
		t.Errorf("revoked key: %+v %v, want RevokedAt %v", a, err, noon)
	}
	if err := add("vscode", "work", "k2"); err != nil {
		t.Fatalf("adding a revoked name again: %v", err)
	}
	list, err := db.Apps(ctx)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		name, scope string
		revoked     bool
	}
	want := []row{{"claude", "full", false}, {"vscode", "read", true}, {"vscode", "work", false}}
	if len(list) != len(want) {
		t.Fatalf("Apps = %+v, want %v", list, want)
	}
	for i, a := range list {
		if (row{a.Name, a.Scope, a.Revoked()}) != want[i] {
			t.Errorf("Apps[%d] = %+v, want %v", i, a, want[i])
		}
	}
	for _, bad := range []store.App{
		{Name: "Bad Name", Scope: "read", KeyHash: hashOf("x")},
		{Name: "ok", Scope: "admin", KeyHash: hashOf("y")},
	} {
		if err := db.AddApp(ctx, bad); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
			t.Errorf("AddApp(%+v): %v, want EINVALID", bad, err)
		}
	}
}

// TestTouchAppRecordsLastUseOfTheLiveAppM4: last use is recorded on the
// live app only; a revoked or unknown name is ENOTFOUND.
func TestTouchAppRecordsLastUseOfTheLiveAppM4(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	at := time.Date(2026, 12, 3, 9, 30, 0, 0, time.UTC)
	if err := db.AddApp(ctx, store.App{Name: "codex", Scope: "read", KeyHash: hashOf("k")}); err != nil {
		t.Fatal(err)
	}
	if err := db.TouchApp(ctx, "codex", at); err != nil {
		t.Fatal(err)
	}
	if a, _ := db.AppByKeyHash(ctx, hashOf("k")); !a.LastUsedAt.Equal(at) {
		t.Errorf("LastUsedAt = %v, want %v", a.LastUsedAt, at)
	}
	if err := db.RevokeApp(ctx, "codex"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"codex", "nobody"} {
		if err := db.TouchApp(ctx, name, at); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
			t.Errorf("touch %s: %v, want ENOTFOUND", name, err)
		}
	}
}
