// Package testwait is the one way tests (and the protocol fakes under
// internal/fakes) wait for something to happen: a condition is checked
// until it holds or a deadline passes, and a timeout reads as a sentence
// naming what was awaited and the state last observed, so a failure on a
// slow machine says what was missing instead of "timed out".
//
// A condition is checked again either every Interval or, when the thing
// observed can signal change (WithChange), at each change; waiting on a
// signal wakes at once and costs nothing while idle.
//
// It serves every test that waits on a signal rather than a sleep (X4).
package testwait

import (
	"fmt"
	"testing"
	"time"
)

// Interval is the pause between checks of a condition that gives no
// signal when it may have changed.
const Interval = 5 * time.Millisecond

// Condition reports whether the awaited state holds and what it saw; saw
// is shown (with %+v) when the wait times out.
type Condition func() (ok bool, saw any)

// Option changes how Until and For wait.
type Option func(*config)

type config struct {
	interval time.Duration
	changed  func() <-chan struct{}
}

// WithInterval checks the condition every d instead of every Interval:
// for conditions that are costly to check (reading a process table).
func WithInterval(d time.Duration) Option { return func(c *config) { c.interval = d } }

// WithChange checks the condition each time the channel that changed
// returns is closed instead of on a timer. changed is called before each
// check, so a change that lands between the check and the wait still
// wakes it: the observed thing must close the returned channel on its next
// change (and hand out a new one).
func WithChange(changed func() <-chan struct{}) Option {
	return func(c *config) { c.changed = changed }
}

// TimeoutError is what Until returns when the condition did not hold in
// time.
type TimeoutError struct {
	Waited time.Duration
	What   string
	Saw    any
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("waited %s for %s; saw %+v", e.Waited, e.What, e.Saw)
}

// Until checks cond until it holds, and returns nil, or until timeout has
// passed, and returns a *TimeoutError naming what and what cond last saw.
// cond is always checked at least once, and once more at the deadline.
func Until(timeout time.Duration, what string, cond Condition, opts ...Option) error {
	c := config{interval: Interval}
	for _, o := range opts {
		o(&c)
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	var tick *time.Ticker
	var tickC <-chan time.Time
	if c.changed == nil {
		tick = time.NewTicker(c.interval)
		defer tick.Stop()
		tickC = tick.C
	}
	for {
		var changed <-chan struct{}
		if c.changed != nil {
			changed = c.changed()
		}
		ok, saw := cond()
		if ok {
			return nil
		}
		select {
		case <-changed:
		case <-tickC:
		case <-deadline.C:
			if ok, saw = cond(); ok {
				return nil
			}
			return &TimeoutError{Waited: timeout, What: what, Saw: saw}
		}
	}
}

// For is Until that fails the test (t.Fatal) on timeout; call it from the
// test's goroutine.
func For(t testing.TB, timeout time.Duration, what string, cond Condition, opts ...Option) {
	t.Helper()
	if err := Until(timeout, what, cond, opts...); err != nil {
		t.Fatal(err)
	}
}
