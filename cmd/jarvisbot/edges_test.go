package main

import (
	"maps"
	"net"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/agents/cliagent"
)

// TestServeStopsWithoutErrorsX4: a normal stop (SIGTERM, SIGINT) of serve
// with its channels, dashboard and MCP endpoint logs no ERROR: the work
// cut by the stop is the stop, not a failure.
func TestServeStopsWithoutErrorsX4(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			e, _, _ := ownerOnTelegram(t)
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

// TestServeStopsOnAnAddressTheOwnerSetX4: a listener the owner set
// (dashboard, MCP endpoint, Telegram's webhook) whose address cannot be
// bound stops serve at start-up, exit status non-zero, with one message
// naming the address, the key and variable that set it, and what to do;
// nothing is served half-way.
func TestServeStopsOnAnAddressTheOwnerSetX4(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	addr := taken.Addr().String()
	for _, tc := range []struct {
		name string
		vars map[string]string
		key  string
	}{
		{"dashboard", map[string]string{"JARVIS_WEB_LISTEN": addr}, "web.listen or JARVIS_WEB_LISTEN"},
		{"MCP endpoint", map[string]string{"JARVIS_MCP_LISTEN": addr}, "mcp_server.listen or JARVIS_MCP_LISTEN"},
		{"webhook", map[string]string{"JARVIS_TELEGRAM_WEBHOOK_URL": "https://jarvis.example.org/telegram", "JARVIS_TELEGRAM_WEBHOOK_LISTEN": addr},
			"telegram.webhook_listen or JARVIS_TELEGRAM_WEBHOOK_LISTEN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _, _ := ownerOnTelegram(t)
			maps.Copy(e.vars, tc.vars)
			p := startProc(t, e, nil, "serve")
			p.wait(t, 60*time.Second)
			out := p.out.String()
			if p.cmd.ProcessState.ExitCode() == 0 {
				t.Fatalf("serve went on without its listener:\n%s", out)
			}
			if !strings.Contains(out, "cannot listen on "+addr) || !strings.Contains(out, tc.key) || !strings.Contains(out, "free address") {
				t.Errorf("the message does not name the address, %s and what to do:\n%s", tc.key, out)
			}
			if strings.Contains(out, "jarvisbot is ready") {
				t.Errorf("serve said it was ready:\n%s", out)
			}
		})
	}
}

// TestServeRefusesAnHTTPWebhookCH1: serve does not start with an http://
// webhook URL, nor with a webhook listener beyond loopback in clear.
func TestServeRefusesAnHTTPWebhookCH1(t *testing.T) {
	for _, tc := range []struct {
		name string
		vars map[string]string
		want string
	}{
		{"http URL", map[string]string{"JARVIS_TELEGRAM_WEBHOOK_URL": "http://jarvis.example.org/telegram"}, "https"},
		{"beyond loopback", map[string]string{"JARVIS_TELEGRAM_WEBHOOK_URL": "https://jarvis.example.org/telegram", "JARVIS_TELEGRAM_WEBHOOK_LISTEN": "0.0.0.0:0"},
			"JARVIS_TELEGRAM_WEBHOOK_BEHIND_PROXY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEnv(t)
			tg := withTelegram(t, e)
			maps.Copy(e.vars, tc.vars)
			code, out := runProc(t, e, "", "serve")
			if code == 0 || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d, want non-zero saying %q:\n%s", code, tc.want, out)
			}
			if u, _ := tg.Webhook(); u != "" {
				t.Errorf("the webhook %q was registered", u)
			}
		})
	}
}

// TestHelpShowsNoSpecIDsX3: `jarvisbot help` and every command's --help,
// as the built binary prints them, carry no SPEC id such as "(C7)": those
// are for the code's readers, not for the owner.
func TestHelpShowsNoSpecIDsX3(t *testing.T) {
	specID := regexp.MustCompile(`\b(?:CH|SC|ST|[CSMPAWVX])[0-9]{1,2}\b`)
	e := newTestEnv(t)
	code, usage := runProc(t, e, "", "help")
	if code != 0 {
		t.Fatalf("help: exit %d\n%s", code, usage)
	}
	outputs := map[string]string{"help": usage}
	cmdLine := regexp.MustCompile(`^  ([a-z]+)\s`)
	for line := range strings.Lines(usage) {
		if m := cmdLine.FindStringSubmatch(line); m != nil {
			_, outputs[m[1]+" --help"] = runProc(t, e, "", m[1], "--help")
		}
	}
	if len(outputs) < 10 {
		t.Fatalf("only %d commands found in the usage:\n%s", len(outputs)-1, usage)
	}
	for what, out := range outputs {
		for line := range strings.Lines(out) {
			if id := specID.FindString(line); id != "" {
				t.Errorf("jarvisbot %s shows the SPEC id %s: %s", what, id, strings.TrimSpace(line))
			}
		}
	}
}

// TestAgentsShowSaysAnOlderClaudeCodeLacksAnOptionM5: `agents show` of an
// agent on a claude CLI older than --system-prompt-snapshot names the
// version found, what it lacks and the release to install.
func TestAgentsShowSaysAnOlderClaudeCodeLacksAnOptionM5(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "claude-old") // the fake runs as an old release by its name
	if out, err := exec.Command("go", "build", "-o", old, "../../agents/cliagent/testdata/fakecli").CombinedOutput(); err != nil {
		t.Fatalf("building the fake CLI: %v\n%s", err, out)
	}
	e := newTestEnv(t)
	e.writeConfig(t, "provider:\n  name: claude-code\n  command: "+old+"\n")
	code, out := runProc(t, e, "", "agents", "show", "default")
	if code != 0 {
		t.Fatalf("agents show: exit %d\n%s", code, out)
	}
	for _, want := range []string{"claude-code 1.0.128 found at " + old, "--system-prompt-snapshot", cliagent.TestedClaudeCode + " or later", "npm install -g @anthropic-ai/claude-code"} {
		if !strings.Contains(out, want) {
			t.Errorf("agents show does not say %q:\n%s", want, out)
		}
	}
}
