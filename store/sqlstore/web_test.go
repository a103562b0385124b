package sqlstore

import (
	"context"
	"testing"
	"time"
)

// TestWebLinkIsUsedOnceW1: a sign-in link signs in once, before it
// expires; an unknown, used or expired link never does.
func TestWebLinkIsUsedOnceW1(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	now := time.Now()
	if err := db.AddWebLink(ctx, hashOf("fresh"), now.Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := db.AddWebLink(ctx, hashOf("stale"), now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, token string
		at          time.Time
		want        bool
	}{
		{"unknown", "never-made", now, false},
		{"first use", "fresh", now, true},
		{"second use", "fresh", now, false},
		{"expired", "stale", now.Add(2 * time.Minute), false},
	} {
		got, err := db.TakeWebLink(ctx, hashOf(tc.token), tc.at)
		if err != nil || got != tc.want {
			t.Errorf("%s: TakeWebLink = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	if err := db.AddWebLink(ctx, "the-link-itself", now.Add(time.Minute)); err == nil {
		t.Error("a link that is no hash was stored")
	}
}

// TestWebSessionLivesUntilItEndsW1: a session is live until it expires or
// its owner signs out.
func TestWebSessionLivesUntilItEndsW1(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	now := time.Now()
	h := hashOf("session")
	if err := db.AddWebSession(ctx, h, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		at   time.Time
		want bool
	}{{"now", now, true}, {"after it expired", now.Add(2 * time.Hour), false}} {
		if got, err := db.WebSession(ctx, h, tc.at); err != nil || got != tc.want {
			t.Errorf("%s: WebSession = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	if err := db.EndWebSession(ctx, h); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.WebSession(ctx, h, now); got {
		t.Error("a session that ended is live")
	}
	if err := db.EndWebSession(ctx, hashOf("unknown")); err != nil {
		t.Errorf("ending an unknown session: %v", err)
	}
}
