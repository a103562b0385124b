package clitool

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
)

// TestRunnerRunsConnectedProgramsA2P5: the runner of cli: tools finds the
// program by the capability's name, reports a non-zero exit as an error
// result the model reads, names the program's own deadline, and refuses a
// program that is not connected.
func TestRunnerRunsConnectedProgramsA2P5(t *testing.T) {
	echo, fail := tool(t, "echo"), tool(t, "false")
	fail.Timeout = 3 * time.Second
	r := Runner{Tools: map[string]Tool{"echo": echo, "false": fail}}
	cliCall := func(name, args string) catalog.Call {
		return catalog.Call{Cap: &catalog.Capability{ID: "cli:" + name, Kind: catalog.KindCLI}, Args: json.RawMessage(args)}
	}
	ctx := context.Background()
	if out, err := r.Run(ctx, cliCall("echo", `{"args":["hello","seam"]}`)); err != nil || out.IsError || !strings.Contains(out.Text, "hello seam") {
		t.Errorf("echo: %+v %v", out, err)
	}
	if out, err := r.Run(ctx, cliCall("false", `{"args":[]}`)); err != nil || !out.IsError || !strings.Contains(out.Text, "exit status 1") {
		t.Errorf("false: %+v %v; want an error result", out, err)
	}
	if _, err := r.Run(ctx, cliCall("gh", `{"args":[]}`)); jarvisbot.ErrorCode(err) != jarvisbot.EUNAVAILABLE || !strings.Contains(err.Error(), "cli:gh") {
		t.Errorf("a program not connected: %v", err)
	}
	for name, want := range map[string]time.Duration{"echo": DefaultTimeout, "false": 3 * time.Second, "gh": 0} {
		if got := r.Timeout(cliCall(name, `{}`)); got != want {
			t.Errorf("timeout of cli:%s %s, want %s", name, got, want)
		}
	}
}
