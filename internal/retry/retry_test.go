package retry

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// TestWaitsDoubleUpToTheCap: the schedules the three reconnecting loops
// had by hand (Telegram 1 s to 30 s, Discord 0.5 s to 2 min, MCP min to
// max) come out of one policy, without jitter.
func TestWaitsDoubleUpToTheCap(t *testing.T) {
	for _, tc := range []struct {
		name string
		pol  Policy
		want []time.Duration
	}{
		{"telegram", Policy{Min: time.Second, Max: 30 * time.Second},
			[]time.Duration{1e9, 2e9, 4e9, 8e9, 16e9, 30e9, 30e9}},
		{"discord", Policy{Min: 500 * time.Millisecond, Max: 2 * time.Minute},
			[]time.Duration{5e8, 1e9, 2e9, 4e9, 8e9, 16e9, 32e9, 64e9, 120e9, 120e9}},
		{"max below min", Policy{Min: time.Second, Max: time.Millisecond},
			[]time.Duration{1e9, 1e9}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := New(clock.NewFake(epoch), tc.pol)
			var got []time.Duration
			for range tc.want {
				got = append(got, b.Next())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("waits %v, want %v", got, tc.want)
			}
			b.Reset()
			if d := b.Next(); d != tc.pol.Min {
				t.Errorf("after Reset the wait is %s, want %s", d, tc.pol.Min)
			}
		})
	}
}

// TestHealthySessionStartsOver: a session that outlasted Healthy on the
// clock resets the schedule when it ends; a short one does not.
func TestHealthySessionStartsOver(t *testing.T) {
	clk := clock.NewFake(epoch)
	b := New(clk, Policy{Min: time.Second, Max: 8 * time.Second, Healthy: 8 * time.Second})
	b.Next()
	b.Next() // the next would be 4s
	b.Up()
	clk.Advance(8 * time.Second)
	b.Down()
	if d := b.Next(); d != 4*time.Second {
		t.Errorf("after a session of exactly Healthy the wait is %s, want 4s (no reset)", d)
	}
	b.Up()
	clk.Advance(8*time.Second + 1)
	b.Down()
	if d := b.Next(); d != time.Second {
		t.Errorf("after a healthy session the wait is %s, want 1s", d)
	}
	b.Down() // no session: nothing to judge
	if d := b.Next(); d != 2*time.Second {
		t.Errorf("Down without Up reset the schedule: wait %s, want 2s", d)
	}
}

// TestWaitFollowsTheClock: Wait returns when the clock has moved by the
// wait, not before, and never sleeps in real time.
func TestWaitFollowsTheClock(t *testing.T) {
	clk := clock.NewFake(epoch)
	b := New(clk, Policy{Min: time.Hour, Max: time.Hour})
	done := make(chan bool, 1)
	go func() { done <- b.Wait(context.Background(), b.Next()) }()
	testwait.For(t, 5*time.Second, "the wait to start", func() (bool, any) { return clk.Pending() == 1, clk.Pending() })
	clk.Advance(time.Hour - time.Nanosecond) // runs every timer due, synchronously
	select {
	case <-done:
		t.Fatal("the wait ended before the clock reached it")
	default:
	}
	clk.Advance(time.Nanosecond)
	select {
	case ok := <-done:
		if !ok {
			t.Error("Wait reported a cancel")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the wait did not end when the clock reached it")
	}
}

// TestWaitEndsWithTheContext: a cancel ends the wait at once and says so.
func TestWaitEndsWithTheContext(t *testing.T) {
	clk := clock.NewFake(epoch)
	b := New(clk, Policy{Min: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan bool, 1)
	go func() { done <- b.Wait(ctx, time.Hour) }()
	testwait.For(t, 5*time.Second, "the wait to start", func() (bool, any) { return clk.Pending() == 1, clk.Pending() })
	cancel()
	select {
	case ok := <-done:
		if ok {
			t.Error("Wait reported the time passed")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the wait outlived its context")
	}
	if n := clk.Pending(); n != 0 {
		t.Errorf("%d timers left behind", n)
	}
}
