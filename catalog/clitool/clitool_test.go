package clitool

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
)

// tool resolves a program of the system. Only a program that is not on
// PATH skips the test; one that is there and that Resolve refuses fails
// it, or a broken Resolve would skip every test here.
func tool(t *testing.T, name string) Tool {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s not installed: %v", name, err)
	}
	tl, err := Resolve(name, "")
	if err != nil {
		t.Fatalf("Resolve(%q) refused a program on PATH: %v", name, err)
	}
	return tl
}

func run(t *testing.T, tl Tool, args string) Result {
	t.Helper()
	r, err := tl.Call(context.Background(), json.RawMessage(args), nil, 0)
	if err != nil {
		t.Fatalf("%s %s: %v", tl.Name, args, err)
	}
	return r
}

// TestNoShellP5: the model's arguments reach the program as they are;
// nothing is interpreted.
func TestNoShellP5(t *testing.T) {
	r := run(t, tool(t, "echo"), `{"args":["$HOME; rm -rf / | cat && `+"`id`"+`"]}`)
	if !strings.Contains(r.Text, "$HOME; rm -rf / | cat && `id`\n") || r.ExitCode != 0 {
		t.Errorf("echo: %q", r.Text)
	}
	if cp := tool(t, "echo").Capability(); cp.ID != "cli:echo" || cp.Tier != catalog.TierAsk || cp.Kind != catalog.KindCLI {
		t.Errorf("capability %+v", cp)
	}
}

func TestEnvironmentLimitedP5(t *testing.T) {
	t.Setenv("JARVIS_TEST_SECRET_OF_PARENT", "leak")
	tl := tool(t, "env")
	tl.Env = map[string]string{"GH_TOKEN": "${GH}", "PAGER": "cat"}
	r, err := tl.Call(context.Background(), json.RawMessage(`{"args":[]}`), func(n string) (string, bool) { return "tok", n == "GH" }, 0)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.Text, "JARVIS_TEST_SECRET_OF_PARENT") || !strings.Contains(r.Text, "GH_TOKEN=tok") || !strings.Contains(r.Text, "PAGER=cat") {
		t.Errorf("environment:\n%s", r.Text)
	}
	if _, err := tl.Call(context.Background(), json.RawMessage(`{"args":[]}`), nil, 0); err == nil || !strings.Contains(err.Error(), "${GH}") {
		t.Errorf("missing reference: %v", err)
	}
}

func TestDeadlineExitAndCapP5(t *testing.T) {
	sleep := tool(t, "sleep")
	sleep.Timeout = 200 * time.Millisecond
	start := time.Now()
	if _, err := sleep.Call(context.Background(), json.RawMessage(`{"args":["10"]}`), nil, 0); err == nil || !strings.Contains(err.Error(), "did not finish within 200ms") {
		t.Errorf("deadline: %v", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("deadline took %s", took)
	}
	if r := run(t, tool(t, "false"), `{"args":[]}`); r.ExitCode != 1 || !strings.HasPrefix(r.Text, "exit status 1") {
		t.Errorf("false: %+v", r)
	}
	r, err := tool(t, "seq").Call(context.Background(), json.RawMessage(`{"args":["1","100000"]}`), nil, 1000)
	if err != nil || !r.Cut || len(r.Text) > 1200 || !strings.Contains(r.Text, "[stdout cut:") {
		t.Errorf("cap: %v cut=%v len=%d", err, r.Cut, len(r.Text))
	}
	if r := run(t, tool(t, "cat"), `{"args":[],"stdin":"from stdin"}`); !strings.Contains(r.Text, "from stdin") {
		t.Errorf("stdin: %q", r.Text)
	}
	// A program that never reads a large stdin still ends the call.
	big, _ := json.Marshal(map[string]any{"args": []string{}, "stdin": strings.Repeat("x", 1<<20)})
	if r := run(t, tool(t, "true"), string(big)); r.ExitCode != 0 {
		t.Errorf("true with unread stdin: %+v", r)
	}
}

func TestBadInputP5(t *testing.T) {
	tl := tool(t, "echo")
	for _, args := range []string{`{"args":"rm -rf /"}`, `{"argv":[]}`, `not json`, `{"args":["a\u0000b"]}`} {
		if _, err := tl.Call(context.Background(), json.RawMessage(args), nil, 0); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
			t.Errorf("%s: %v", args, err)
		}
	}
	if _, err := Resolve("nope", "no-such-program-xyz"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("missing program: %v", err)
	}
	if _, err := Resolve("Bad Name", "echo"); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("bad name: %v", err)
	}
}
