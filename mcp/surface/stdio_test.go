package surface

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/jarvisbot/jarvisbot"
)

// bridged runs ServeStdio on pipes and returns an initialized client
// talking to it. The bridge is stopped, and waited for, at cleanup.
func bridged(t *testing.T, url, key string) *client.Client {
	t.Helper()
	toBridge, clientOut := io.Pipe()
	clientIn, fromBridge := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- ServeStdio(ctx, toBridge, fromBridge, url, key, Options{Version: "test"})
		_ = fromBridge.Close()
	}()
	c := client.NewClient(transport.NewIO(clientIn, clientOut, nil))
	t.Cleanup(func() {
		_ = clientOut.Close() // the bridge's stdin ends: it returns
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("ServeStdio did not return after its input ended")
		}
		_ = c.Close()
	})
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "claude-desktop-like", Version: "1"}
	res, err := c.Initialize(t.Context(), init)
	if err != nil {
		t.Fatalf("initialize through the bridge: %v", err)
	}
	if res.ServerInfo.Name != "jarvisbot" {
		t.Errorf("server name %q, want jarvisbot", res.ServerInfo.Name)
	}
	return c
}

func TestStdioBridgeForwardsToTheRunningService_M4(t *testing.T) {
	f := newFixture(t)
	c := bridged(t, f.url, workKey)
	got := toolNames(t, c)
	slices.Sort(got)
	if want := slices.Sorted(slices.Values(slices.Concat(readTools, workTools))); !slices.Equal(got, want) {
		t.Errorf("tools through the bridge %v, want the work key's %v", got, want)
	}
	res := call(t, c, "agent_chat", map[string]any{"agent": "default", "text": "hello"})
	if res.IsError || !strings.Contains(text(res), "hello worker") {
		t.Errorf("agent_chat through the bridge: %q", text(res))
	}
	if rs := f.b.Records(); len(rs) != 1 || rs[0] != (record{"worker", "agent_chat", ChatAnswered}) {
		t.Errorf("records %v, want the call under app worker", rs)
	}
	// The service's tool errors pass through as they are.
	f.b.fail = errNotFound
	if res := call(t, c, "agent_get", map[string]any{"agent": "nobody"}); !res.IsError || !strings.Contains(text(res), "agent nobody does not exist") {
		t.Errorf("a tool error through the bridge: %q", text(res))
	}
}

var errNotFound = jarvisbot.Errorf(jarvisbot.ENOTFOUND, "agent nobody does not exist")

// switchable serves h while up is set and drops every connection while
// not, as a service that is not running would.
func switchable(h http.Handler, up *atomic.Bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if up.Load() {
			h.ServeHTTP(w, r)
			return
		}
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	})
}

func TestStdioBridgeWithTheServiceDownOffersOneToolThatSaysSo_M4(t *testing.T) {
	b := newTestBackend()
	var up atomic.Bool
	srv := httptest.NewServer(switchable(newServer(t, b, newTestKeys(testCallers()), Options{}).Handler(), &up))
	t.Cleanup(srv.Close)

	c := bridged(t, srv.URL+Path, readKey)
	if got := toolNames(t, c); !slices.Equal(got, []string{"status"}) {
		t.Fatalf("tools with the service down %v, want only status", got)
	}
	res := call(t, c, "status", nil)
	if !res.IsError || !strings.Contains(text(res), "not running") || !strings.Contains(text(res), "jarvisbot serve") {
		t.Errorf("status with the service down: %q, want how to start it", text(res))
	}

	// The service comes up: the next call connects and answers.
	up.Store(true)
	if res := call(t, c, "status", nil); res.IsError || !strings.Contains(text(res), `"agents":2`) {
		t.Errorf("status once the service runs: %q", text(res))
	}
	got := toolNames(t, c)
	slices.Sort(got)
	if want := slices.Sorted(slices.Values(readTools)); !slices.Equal(got, want) {
		t.Errorf("tools once the service runs %v, want %v", got, want)
	}
}

func TestStdioBridgeSaysWhenTheKeyIsRefused_M4(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct{ name, key, want string }{
		{"wrong key", "not-a-key", "refused the key in JARVIS_APP_KEY"},
		{"no key", "", "JARVIS_APP_KEY is not set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := bridged(t, f.url, tc.key)
			if got := toolNames(t, c); !slices.Equal(got, []string{"status"}) {
				t.Fatalf("tools %v, want only status", got)
			}
			if res := call(t, c, "status", nil); !res.IsError || !strings.Contains(text(res), tc.want) {
				t.Errorf("status: %q, want %q", text(res), tc.want)
			}
		})
	}
	if got := f.b.Asked(); len(got) != 0 {
		t.Errorf("the backend was asked %v through a refused key", got)
	}
}

func TestStdioBridgeTellsARevokedOrLimitedKeyMidSession_M4(t *testing.T) {
	f := newFixture(t)
	c := bridged(t, f.url, workKey)
	if res := call(t, c, "status", nil); res.IsError {
		t.Fatalf("status: %s", text(res))
	}
	f.keys.mu.Lock()
	f.keys.limited[workKey] = 3 * time.Second
	f.keys.mu.Unlock()
	if res := call(t, c, "status", nil); !res.IsError || !strings.Contains(text(res), "asked too often; call again in 3 seconds") {
		t.Errorf("status while rate-limited: %q", text(res))
	}
	f.keys.mu.Lock()
	delete(f.keys.limited, workKey)
	f.keys.mu.Unlock()
	if res := call(t, c, "status", nil); res.IsError {
		t.Errorf("status after the limit: %s", text(res))
	}
	f.keys.revoke(workKey)
	if res := call(t, c, "status", nil); !res.IsError || !strings.Contains(text(res), "refused the key in JARVIS_APP_KEY") {
		t.Errorf("status after revoking: %q", text(res))
	}
}
