// Package clock lets code that waits on time be tested without sleeping:
// the approvals engine, the scheduler and retries take a Clock; tests pass
// a Fake and move it forward.
//
// It serves SC1 and X4: tests pin the clock the schedule and expiries run on.
package clock

import (
	"context"
	"sort"
	"sync"
	"time"
)

// Clock tells the time and runs functions later.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has passed; the
	// returned stop function cancels it and reports whether it did.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// Real is the wall clock.
type Real struct{}

// Now returns the current time.
func (Real) Now() time.Time { return time.Now() }

// AfterFunc is time.AfterFunc.
func (Real) AfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// Fake is a clock that moves only when told to. It is safe for concurrent use.
type Fake struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	at   time.Time
	f    func()
	done bool
}

// NewFake returns a fake clock at t.
func NewFake(t time.Time) *Fake { return &Fake{now: t} }

// Now returns the fake time.
func (c *Fake) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc schedules f at now+d.
func (c *Fake) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		if t.done {
			return false
		}
		t.done = true
		return true
	}
}

// Advance moves the clock forward and runs, in time order, every function
// that came due; it returns once they have all returned.
func (c *Fake) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []*fakeTimer
	keep := c.timers[:0]
	for _, t := range c.timers {
		switch {
		case t.done:
		case !t.at.After(c.now):
			t.done = true
			due = append(due, t)
		default:
			keep = append(keep, t)
		}
	}
	c.timers = keep
	c.mu.Unlock()
	sort.Slice(due, func(i, j int) bool { return due[i].at.Before(due[j].at) })
	var wg sync.WaitGroup
	for _, t := range due {
		wg.Add(1)
		go func() { defer wg.Done(); t.f() }()
		wg.Wait()
	}
}

// Pending returns how many functions wait to be run.
func (c *Fake) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.timers {
		if !t.done {
			n++
		}
	}
	return n
}

// Sleep waits d on c, or until ctx ends, and reports whether d passed.
func Sleep(ctx context.Context, c Clock, d time.Duration) bool {
	if ctx.Err() != nil {
		return false
	}
	passed := make(chan struct{})
	stop := c.AfterFunc(d, func() { close(passed) })
	defer stop()
	select {
	case <-passed:
		return true
	case <-ctx.Done():
		return false
	}
}
