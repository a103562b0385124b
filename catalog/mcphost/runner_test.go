package mcphost

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/catalog"
)

// TestHostRunsMCPCallsA2M2: the host is the runner of mcp: tools for the
// agent runtime: a call reaches the capability's server and tool, a tool
// that reports failure is an error result, the deadline it names is the
// server's own, and a server it does not supervise is an error.
func TestHostRunsMCPCallsA2M2(t *testing.T) {
	cat := catalog.New()
	h := NewHost(cat, HostOptions{})
	defer h.Close()
	srv := stdioServer("runner")
	srv.Timeout = 7 * time.Second
	if err := h.Start(context.Background(), srv); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the server to come up", toolsOf(cat, "runner", func(m map[string]bool) bool { return m["echo"] }))
	mcpCall := func(server, tool, args string) catalog.Call {
		return catalog.Call{Cap: &catalog.Capability{ID: catalog.MCPID(server, tool), Kind: catalog.KindMCP, Server: server, Tool: tool}, Args: json.RawMessage(args)}
	}
	ctx := context.Background()
	if out, err := h.Run(ctx, mcpCall("runner", "echo", `{"text":"through the seam"}`)); err != nil || out.IsError || out.Text != "through the seam" {
		t.Errorf("echo: %+v %v", out, err)
	}
	if out, err := h.Run(ctx, mcpCall("runner", "fail", `{}`)); err != nil || !out.IsError || !strings.Contains(out.Text, "failed on purpose") {
		t.Errorf("fail: %+v %v; want an error result", out, err)
	}
	if got := h.Timeout(mcpCall("runner", "echo", `{}`)); got != 7*time.Second {
		t.Errorf("timeout %s, want the server's 7s", got)
	}
	if got := h.Timeout(mcpCall("elsewhere", "echo", `{}`)); got != 0 {
		t.Errorf("timeout of an unknown server %s, want 0", got)
	}
	if _, err := h.Run(ctx, mcpCall("elsewhere", "echo", `{}`)); err == nil || !strings.Contains(err.Error(), "elsewhere") {
		t.Errorf("unknown server: %v", err)
	}
}
