package mcphost

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/clock"
)

// knownServer puts a server in the catalog with tools as the store keeps
// them from its last listing, as serve's start does before any process
// runs.
func knownServer(t *testing.T, cat *catalog.Catalog, name string) {
	t.Helper()
	tools := []catalog.SnapshotTool{{Name: "echo", Description: "Echo text back", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)}}
	if err := cat.SetServer(catalog.Server{ID: name, Connected: true}, tools); err != nil {
		t.Fatal(err)
	}
}

func state(h *Host, name string) Status {
	for _, st := range h.Status() {
		if st.Name == name {
			return st
		}
	}
	return Status{}
}

// waitIdleTimer waits until the server is up and its idle timer is set
// on the clock.
func waitIdleTimer(t *testing.T, h *Host, clk *clock.Fake, name string) {
	t.Helper()
	waitFor(t, name+" up with its idle timer set", func() (bool, any) {
		st := state(h, name)
		return st.State == StateUp && clk.Pending() == 1, fmt.Sprintf("%+v, %d timers", st, clk.Pending())
	})
}

// TestIdleServerStartsOnUseAndStopsWhenUnusedM3: a server whose tools
// are known runs no process until a call needs it; it stops after
// IdleAfter on the clock with no call, counted from the last call's end,
// keeps its tools offered while idle, and the next call starts it again,
// which is no restart.
func TestIdleServerStartsOnUseAndStopsWhenUnusedM3(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	cat := catalog.New()
	knownServer(t, cat, "lazy")
	h := NewHost(cat, HostOptions{IdleAfter: time.Minute, Clock: clk})
	defer h.Close()
	if err := h.StartIdle(context.Background(), stdioServer("lazy")); err != nil {
		t.Fatal(err)
	}
	if st := state(h, "lazy"); st.State != StateIdle || st.Tools != 1 {
		t.Fatalf("after StartIdle: %+v; want idle with its one known tool", st)
	}
	if tools := connectedTools(cat, "lazy"); !tools["echo"] {
		t.Fatalf("an idle server's tools are not offered: %v", tools)
	}

	r, err := h.Call(context.Background(), "lazy", "echo", json.RawMessage(`{"text":"first"}`))
	if err != nil || r.Text != "first" {
		t.Fatalf("the first call on an idle server: %+v %v", r, err)
	}
	waitIdleTimer(t, h, clk, "lazy")
	clk.Advance(59 * time.Second)
	if _, err := h.Call(context.Background(), "lazy", "echo", json.RawMessage(`{"text":"again"}`)); err != nil {
		t.Fatal(err)
	}
	// A minute after the start, 1 s after the last call: the idle timer
	// is set again for what is left.
	clk.Advance(time.Second)
	waitIdleTimer(t, h, clk, "lazy")
	clk.Advance(58 * time.Second)
	if st := state(h, "lazy"); st.State != StateUp {
		t.Fatalf("59 s after its last call: %+v; want still up", st)
	}
	clk.Advance(time.Second)
	waitFor(t, "the server to idle out", func() (bool, any) { st := state(h, "lazy"); return st.State == StateIdle, st })
	if tools := connectedTools(cat, "lazy"); !tools["echo"] {
		t.Errorf("an idled-out server's tools left the catalog: %v", tools)
	}

	r, err = h.Call(context.Background(), "lazy", "echo", json.RawMessage(`{"text":"back"}`))
	if err != nil || r.Text != "back" {
		t.Fatalf("a call after idling out: %+v %v", r, err)
	}
	if st := state(h, "lazy"); st.State != StateUp || st.Restarts != 0 || st.Err != nil {
		t.Errorf("after starting again on use: %+v; want up with no restart counted", st)
	}
}

// TestIdleWaitsForCallsInFlight: a session never ends under a call; it
// idles out IdleAfter after the call ended.
func TestIdleWaitsForCallsInFlight(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	cat := catalog.New()
	knownServer(t, cat, "busy")
	h := NewHost(cat, HostOptions{IdleAfter: time.Minute, Clock: clk})
	defer h.Close()
	h.StartIdle(context.Background(), stdioServer("busy"))
	h.mu.Lock()
	m := h.servers["busy"]
	h.mu.Unlock()
	if _, err := h.acquire(context.Background(), m); err != nil { // a call that runs long
		t.Fatal(err)
	}
	waitIdleTimer(t, h, clk, "busy")
	clk.Advance(10 * time.Minute)
	waitFor(t, "the timer set again", func() (bool, any) { return clk.Pending() == 1, clk.Pending() })
	if st := state(h, "busy"); st.State != StateUp {
		t.Fatalf("with a call in flight: %+v; want up", st)
	}
	h.release(m) // at 10 min; the timer, set while the call ran, is due at 11
	clk.Advance(59 * time.Second)
	if st := state(h, "busy"); st.State != StateUp {
		t.Fatalf("59 s after the call ended: %+v; want up", st)
	}
	clk.Advance(time.Second)
	waitFor(t, "the server to idle out", func() (bool, any) { st := state(h, "busy"); return st.State == StateIdle, st })
}

// TestWarmAndWaitStartIdleServers: a turn warms the idle servers it was
// offered without waiting, and waits for one it wants; names the host
// does not supervise are left alone. Stopping an idle server ends its
// supervision at once.
func TestWarmAndWaitStartIdleServers(t *testing.T) {
	cat := catalog.New()
	knownServer(t, cat, "warm")
	knownServer(t, cat, "waited")
	h := NewHost(cat, HostOptions{IdleAfter: time.Hour})
	defer h.Close()
	h.StartIdle(context.Background(), stdioServer("warm"))
	h.StartIdle(context.Background(), stdioServer("waited"))
	h.Warm([]string{"warm", "nobody"})
	waitFor(t, "the warmed server up", func() (bool, any) { st := state(h, "warm"); return st.State == StateUp, st })
	if st := state(h, "waited"); st.State != StateIdle {
		t.Fatalf("a server nobody warmed: %+v; want idle", st)
	}
	if sts := h.WaitStarted(context.Background(), []string{"waited"}); len(sts) != 1 || sts[0].State != StateUp {
		t.Fatalf("WaitStarted on an idle server: %+v; want it started and up", sts)
	}
	h.Stop("waited")
	h.Stop("warm")
	if _, ok := cat.View().Server("warm"); ok {
		t.Error("a stopped server is still in the catalog")
	}
}

// TestIdleOffKeepsSessions: without IdleAfter a server begun with
// StartIdle starts at once and keeps running.
func TestIdleOffKeepsSessions(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	cat := catalog.New()
	knownServer(t, cat, "eager")
	h := NewHost(cat, HostOptions{Clock: clk})
	defer h.Close()
	h.StartIdle(context.Background(), stdioServer("eager"))
	waitFor(t, "the server up without a call", func() (bool, any) { st := state(h, "eager"); return st.State == StateUp, st })
	if p := clk.Pending(); p != 0 {
		t.Errorf("%d timers on the clock; want no idle timer", p)
	}
}

// TestIdleServerThatFailsToStartGoesDownM3: a server that no longer
// starts when a call needs it answers that call with why, and its tools
// leave the catalog as any server's that is down.
func TestIdleServerThatFailsToStartGoesDownM3(t *testing.T) {
	cat := catalog.New()
	knownServer(t, cat, "gone")
	h := NewHost(cat, HostOptions{IdleAfter: time.Minute, MinBackoff: time.Hour, MaxBackoff: time.Hour})
	defer h.Close()
	h.StartIdle(context.Background(), stdioServer("gone", "-exit-at-start", "3"))
	_, err := h.Call(context.Background(), "gone", "echo", json.RawMessage(`{"text":"x"}`))
	if err == nil || !strings.Contains(err.Error(), "status 3") {
		t.Fatalf("a call on an idle server that cannot start: %v; want the exit status", err)
	}
	if tools := connectedTools(cat, "gone"); len(tools) != 0 {
		t.Errorf("a server that is down still offers %v", tools)
	}
}

// TestIdleServersHoldNoGoroutineM3: servers started idle run nothing,
// not even a goroutine, until a request wants one, so an owner's many
// servers cost nothing while unused; one never woken stops at once (Stop,
// Close), and the one a call wakes is supervised as any other.
func TestIdleServersHoldNoGoroutineM3(t *testing.T) {
	const n = 100
	cat := catalog.New()
	h := NewHost(cat, HostOptions{IdleAfter: time.Minute, Clock: clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))})
	defer h.Close() // when the test ends early; closing twice is no harm
	before := runtime.NumGoroutine()
	for i := range n {
		name := fmt.Sprintf("lazy%d", i)
		knownServer(t, cat, name)
		if err := h.StartIdle(context.Background(), stdioServer(name)); err != nil {
			t.Fatal(err)
		}
	}
	// Other tests' goroutines may come and go meanwhile: a supervisor per
	// server would be n more.
	if grown := runtime.NumGoroutine() - before; grown >= n/2 {
		t.Errorf("%d idle servers added %d goroutines", n, grown)
	}
	h.Stop("lazy0") // never woken: returns without a supervisor to wait for
	if st := state(h, "lazy0"); st.Name != "" {
		t.Errorf("lazy0 is still supervised after Stop: %+v", st)
	}
	r, err := h.Call(context.Background(), "lazy1", "echo", json.RawMessage(`{"text":"woken"}`))
	if err != nil || r.Text != "woken" {
		t.Fatalf("a call on an idle server: %+v %v", r, err)
	}
	if st := state(h, "lazy1"); st.State != StateUp {
		t.Errorf("after its call: %+v; want up", st)
	}
	h.Close() // stops the woken one and the 98 that never ran
}
