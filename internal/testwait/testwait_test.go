package testwait

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestTimeoutNamesWhatAndLastSeen: a condition that never holds ends at
// the deadline with a message naming what was awaited and the state
// last observed, not the first.
func TestTimeoutNamesWhatAndLastSeen(t *testing.T) {
	var n atomic.Int32
	start := time.Now()
	err := Until(50*time.Millisecond, "the answer", func() (bool, any) {
		return false, n.Add(1)
	})
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v, want a *TimeoutError", err)
	}
	if took := time.Since(start); took < 50*time.Millisecond {
		t.Errorf("gave up after %s, before the 50ms deadline", took)
	}
	if te.Saw != n.Load() {
		t.Errorf("saw %v, want the last observation %d", te.Saw, n.Load())
	}
	for _, want := range []string{"waited 50ms for the answer", "saw "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
}

// TestHoldsReturnsAtOnce: a condition that already holds costs one check.
func TestHoldsReturnsAtOnce(t *testing.T) {
	calls := 0
	if err := Until(time.Hour, "x", func() (bool, any) { calls++; return true, nil }); err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Errorf("%d checks, want 1", calls)
	}
}

// TestPollsUntilHolds: a condition that comes true later is seen.
func TestPollsUntilHolds(t *testing.T) {
	var done atomic.Bool
	time.AfterFunc(20*time.Millisecond, func() { done.Store(true) })
	For(t, 10*time.Second, "the flag", func() (bool, any) { return done.Load(), done.Load() })
}

// changes is a value that closes its channel on each change, as the fakes do.
type changes struct {
	mu  sync.Mutex
	v   int
	sig chan struct{}
}

func (c *changes) changed() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sig
}

func (c *changes) set(v int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.v = v
	close(c.sig)
	c.sig = make(chan struct{})
}

func (c *changes) get() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.v
}

// TestWithChangeWakesOnSignalOnly: with a change signal the condition is
// checked once per change, not on a timer.
func TestWithChangeWakesOnSignalOnly(t *testing.T) {
	c := &changes{sig: make(chan struct{})}
	var checks atomic.Int32
	done := make(chan error, 1)
	go func() {
		done <- Until(10*time.Second, "value 3", func() (bool, any) {
			checks.Add(1)
			v := c.get()
			return v == 3, v
		}, WithChange(c.changed))
	}()
	for v := 1; v <= 3; v++ {
		c.set(v)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := checks.Load(); n > 4 {
		t.Errorf("%d checks for 3 changes, want at most 4", n)
	}
}

// TestForFailsTheTest: For reports the timeout through the test.
func TestForFailsTheTest(t *testing.T) {
	ft := &fakeT{}
	func() {
		defer func() { recover() }()
		For(ft, 10*time.Millisecond, "nothing", func() (bool, any) { return false, "state" })
	}()
	if !strings.Contains(ft.msg, "waited 10ms for nothing; saw state") {
		t.Errorf("fatal message %q", ft.msg)
	}
}

type fakeT struct {
	testing.TB
	msg string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Fatal(args ...any) {
	f.msg = args[0].(error).Error()
	panic("fatal")
}

// TestBufferTakesConcurrentWrites: writers in several goroutines lose no
// byte while the test reads.
func TestBufferTakesConcurrentWrites(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				b.Write([]byte("x"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if n := len(b.String()); n != 800 {
		t.Errorf("%d bytes, want 800", n)
	}
}

// TestStopCancelsAndWaits: Stop ends the goroutine's context and returns
// once its result is in.
func TestStopCancelsAndWaits(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { <-ctx.Done(); done <- nil }()
	if took := Stop(t, "the loop", cancel, done, 5*time.Second); took > 5*time.Second {
		t.Errorf("took %s", took)
	}
	if ctx.Err() == nil {
		t.Error("the context was not cancelled")
	}
}
