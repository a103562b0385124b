// Package retry is the one schedule by which jarvisbot reconnects what
// it keeps open: the Telegram long poll, the Discord gateway, and the
// sessions of supervised MCP servers. The waits grow exponentially
// (github.com/cenkalti/backoff/v5's schedule, doubling, no jitter: one
// process reconnecting to one service has no herd to spread) from Min to
// a cap, and start over after a success or a session that stayed healthy.
// Waiting goes through the injectable clock, so tests move time instead
// of sleeping through it.
//
// It serves CH1, M3 and P6.
package retry

import (
	"context"
	"time"

	"github.com/cenkalti/backoff/v5"

	"github.com/jarvisbot/jarvisbot/internal/clock"
)

// Policy bounds the waits.
type Policy struct {
	Min, Max time.Duration // the first wait, and the cap it doubles up to
	// Healthy is how long a session must have outlasted for the schedule
	// to start over when it ends (see Down); 0 means any session does.
	Healthy time.Duration
}

// Backoff is one connection's restart schedule. It is not safe for
// concurrent use: the one goroutine that keeps the connection owns it.
type Backoff struct {
	clock clock.Clock
	exp   backoff.ExponentialBackOff
	pol   Policy
	up    time.Time // when the current session began; zero when down
}

// New returns a schedule on c (the wall clock when nil) whose first wait
// is p.Min. A Max below Min is taken as Min.
func New(c clock.Clock, p Policy) *Backoff {
	if c == nil {
		c = clock.Real{}
	}
	p.Max = max(p.Max, p.Min)
	b := &Backoff{clock: c, pol: p, exp: backoff.ExponentialBackOff{
		InitialInterval: p.Min,
		Multiplier:      2,
		MaxInterval:     p.Max,
	}}
	b.exp.Reset()
	return b
}

// Next returns the wait before the next attempt and doubles the one
// after it, up to Max.
func (b *Backoff) Next() time.Duration { return b.exp.NextBackOff() }

// Reset starts the schedule over: the next wait is Min.
func (b *Backoff) Reset() { b.exp.Reset() }

// Up marks a session as begun now.
func (b *Backoff) Up() { b.up = b.clock.Now() }

// Down marks the session as ended; if it lasted longer than Healthy, the
// schedule starts over, so a server that crashes once a day is restarted
// at once rather than after the cap its last outage reached.
func (b *Backoff) Down() {
	if !b.up.IsZero() && (b.pol.Healthy == 0 || b.clock.Now().Sub(b.up) > b.pol.Healthy) {
		b.Reset()
	}
	b.up = time.Time{}
}

// Wait waits d on the schedule's clock, or until ctx ends, and reports
// whether d passed.
func (b *Backoff) Wait(ctx context.Context, d time.Duration) bool {
	return clock.Sleep(ctx, b.clock, d)
}
