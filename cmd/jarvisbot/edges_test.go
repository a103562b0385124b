package main

import (
	"strings"
	"syscall"
	"testing"
)

// TestServeStopsWithoutErrorsX4: a normal stop (SIGTERM, SIGINT) of serve
// with its channels, dashboard and MCP endpoint logs no ERROR: the work
// cut by the stop is the stop, not a failure.
func TestServeStopsWithoutErrorsX4(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			e := newTestEnv(t)
			withModel(t, e)
			withTelegram(t, e)
			e.vars["JARVIS_TELEGRAM_OWNERS"] = "42"
			e.vars["JARVIS_WEB_LISTEN"], e.vars["JARVIS_MCP_LISTEN"] = "127.0.0.1:0", "127.0.0.1:0"
			p := startProc(t, e, nil, "serve")
			waitOutput(t, p.out, "jarvisbot is ready")
			p.stop(t, sig)
			out := p.out.String()
			if !strings.Contains(out, "msg=stopped") {
				t.Fatalf("serve did not stop in order:\n%s", out)
			}
			for l := range strings.Lines(out) {
				if strings.Contains(l, "level=ERROR") {
					t.Errorf("a normal stop logged an error: %s", l)
				}
			}
		})
	}
}
