package mcphost

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
)

type stateEvent struct {
	state State
	err   error
}

// watchStates returns host options that report every state change on a
// channel, and a function that waits for the next change to want.
func watchStates(t *testing.T, opt HostOptions) (HostOptions, func(want State) stateEvent) {
	events := make(chan stateEvent, 64)
	opt.OnState = func(_ Server, st State, err error) { events <- stateEvent{st, err} }
	return opt, func(want State) stateEvent {
		t.Helper()
		deadline := time.After(15 * time.Second)
		for {
			select {
			case ev := <-events:
				if ev.state == want {
					return ev
				}
			case <-deadline:
				t.Fatalf("timed out waiting for the server to be %s", want)
			}
		}
	}
}

// TestHungConnIsKilledM3: when a call passes its deadline and the server
// does not answer a ping either, the session ends with why and a stdio
// server's process group is killed, without waiting for Close.
func TestHungConnIsKilledM3(t *testing.T) {
	s := stdioServer("frozen")
	s.Timeout = 500 * time.Millisecond
	cn := dial(t, s, DialOptions{PingTimeout: 300 * time.Millisecond})
	_, err := cn.Call(context.Background(), "freeze", json.RawMessage(`{}`), 0)
	if err == nil || !strings.Contains(err.Error(), "stopped answering") || jarvisbot.ErrorCode(err) != jarvisbot.EUNAVAILABLE {
		t.Fatalf("call to a frozen server: %v", err)
	}
	select {
	case <-cn.Done():
	default:
		t.Error("the session of a server that stopped answering is not over")
	}
	select {
	case <-cn.proc.exited:
	case <-time.After(5 * time.Second):
		t.Fatal("the frozen server's process is still running")
	}
	start := time.Now()
	if _, err := cn.Call(context.Background(), "echo", json.RawMessage(`{"text":"x"}`), 0); err == nil || time.Since(start) > 200*time.Millisecond {
		t.Errorf("a call after the server stopped answering: %v after %s", err, time.Since(start))
	}
}

// TestHungServerGoesDownM3: a server that stops answering is treated as
// down (M3): after the hung call, its tools leave the catalog at once, the
// next call to another of its tools fails at once instead of waiting for
// its deadline, and the server comes back: a stdio server restarted, an
// HTTP server reconnected once it answers again.
func TestHungServerGoesDownM3(t *testing.T) {
	cases := []struct {
		name   string
		srv    Server
		freeze string
	}{
		{"stdio", stdioServer("frozen"), `{}`},
		{"http", Server{Name: "frozen", URL: httpServer(t)}, `{"ms": 2500}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cat := catalog.New()
			opt, waitState := watchStates(t, HostOptions{
				MinBackoff: 2 * time.Second, MaxBackoff: 4 * time.Second,
				Dial: DialOptions{PingTimeout: 300 * time.Millisecond, InitTimeout: 10 * time.Second},
			})
			h := NewHost(cat, opt)
			defer h.Close()
			srv := c.srv
			srv.Timeout = 1500 * time.Millisecond
			if err := h.Start(context.Background(), srv); err != nil {
				t.Fatal(err)
			}
			waitState(StateUp)
			if !connectedTools(cat, "frozen")["echo"] {
				t.Fatal("tools not connected while up")
			}

			_, err := h.Call(context.Background(), "frozen", "freeze", json.RawMessage(c.freeze))
			if err == nil || !strings.Contains(err.Error(), "stopped answering") {
				t.Fatalf("the hung call: %v", err)
			}
			down := waitState(StateDown)
			if down.err == nil || !strings.Contains(down.err.Error(), "stopped answering") {
				t.Errorf("down because of %v", down.err)
			}
			if tools := connectedTools(cat, "frozen"); len(tools) != 0 {
				t.Errorf("tools still connected when the server was reported down: %v", tools)
			}
			start := time.Now()
			_, err = h.Call(context.Background(), "frozen", "echo", json.RawMessage(`{"text":"x"}`))
			if took := time.Since(start); err == nil || jarvisbot.ErrorCode(err) != jarvisbot.EUNAVAILABLE || took > 500*time.Millisecond {
				t.Errorf("the next call: %v after %s; want unavailable at once, not after the %s deadline", err, took, srv.Timeout)
			}

			waitState(StateUp)
			if r, err := h.Call(context.Background(), "frozen", "echo", json.RawMessage(`{"text":"back"}`)); err != nil || r.Text != "back" {
				t.Errorf("after coming back: %+v %v", r, err)
			}
			if !connectedTools(cat, "frozen")["echo"] {
				t.Error("tools not back in the catalog")
			}
			if st := h.Status()[0]; st.Restarts < 1 {
				t.Errorf("status %+v", st)
			}
		})
	}
}

// TestDeafServerDeadlineM2: a server that stopped reading its stdin lets
// a large request fill the pipe; the call still ends at its deadline (M2),
// and the server is found hung (M3).
func TestDeafServerDeadlineM2(t *testing.T) {
	s := stdioServer("deaf")
	s.Timeout = time.Second
	cn := dial(t, s, DialOptions{PingTimeout: 300 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	frozen := make(chan error, 1)
	go func() {
		_, err := cn.Call(ctx, "freeze", json.RawMessage(`{}`), 0)
		frozen <- err
	}()
	waitFor(t, "the server to freeze", stderrSays(cn, "mcptest: frozen"))
	cancel() // the turn gave up; the server stays deaf
	if err := <-frozen; err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Fatalf("cancelled freeze call: %v", err)
	}
	big, _ := json.Marshal(map[string]string{"text": strings.Repeat("x", 1<<20)})
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		_, err := cn.Call(context.Background(), "echo", big, 0)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "stopped answering") {
			t.Errorf("a call to a deaf server: %v", err)
		}
		if took := time.Since(start); took > 3*time.Second {
			t.Errorf("the call took %s, past its 1s deadline", took)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("a call blocked writing to a server that does not read ignores its deadline")
	}
}
