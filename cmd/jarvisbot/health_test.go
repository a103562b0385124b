package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
)

// get fetches url and returns the status and body; an error is status 0.
func get(url string, headers ...string) (int, string) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, err.Error()
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestServeProbesAndMetrics runs the built binary as an operator does
// (issue 20): /readyz turns 200 once serve started, /metrics counts a
// turn, and once SIGTERM starts the drain /readyz says 503 while the
// answer in progress finishes; `jarvisbot healthcheck --ready` exits 0
// and then 1 with it.
func TestServeProbesAndMetrics(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	e.vars["JARVIS_WEB_LISTEN"] = "127.0.0.1:0"
	e.vars["JARVIS_WEB_METRICS"] = "1"
	p := startProc(t, e, nil, "serve")
	waitOutput(t, p.out, "dashboard listening")
	m := regexp.MustCompile(`dashboard listening"? url=http://(127\.0\.0\.1:\d+)/`).FindStringSubmatch(p.out.String())
	if m == nil {
		t.Fatalf("serve did not say where the dashboard listens:\n%s", p.out.String())
	}
	base := "http://" + m[1]
	check := e.replica(map[string]string{"JARVIS_WEB_LISTEN": m[1]})

	waitFor(t, "/readyz to say ready", func() (bool, any) {
		code, body := get(base + "/readyz")
		return code == 200 && strings.TrimSpace(body) == "ready", fmt.Sprint(code, " ", body)
	})
	if code, body := get(base + "/healthz"); code != 200 {
		t.Errorf("/healthz: %d %s", code, body)
	}
	if code, out := runProc(t, check, "", "healthcheck", "--ready"); code != 0 {
		t.Errorf("healthcheck --ready on a ready serve exited %d: %s", code, out)
	}

	f.Push(fakellm.Step{Text: "Hello there.", Usage: fakellm.Usage{InputTokens: 12, OutputTokens: 3}})
	tg.SendText(42, 42, "hello")
	waitSent(t, tg, "the answer", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Hello there.") })
	waitFor(t, "the turn on /metrics", func() (bool, any) {
		code, body := get(base + "/metrics")
		return code == 200 && strings.Contains(body, `jarvisbot_turns_total{outcome="ok"} 1`) &&
			strings.Contains(body, "jarvisbot_gate_offered_tools_count 1") &&
			strings.Contains(body, "jarvisbot_approvals_pending 0") &&
			regexp.MustCompile(`jarvisbot_model_tokens_total\{model="[a-z]+/[^"]+",kind="output"\} 3\n`).MatchString(body) &&
			regexp.MustCompile(`jarvisbot_model_calls_total\{model="[a-z]+/[^"]+",outcome="ok"\} 1\n`).MatchString(body) &&
			strings.Contains(body, "jarvisbot_build_info{"), body
	})

	// An answer in progress holds the drain open.
	release := make(chan struct{})
	f.Push(fakellm.Step{Text: "Slowly, but here.", Release: release})
	tg.SendText(42, 42, "take your time")
	waitFor(t, "the second turn at the model", func() (bool, any) { return len(f.Requests()) == 2, len(f.Requests()) })
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "/readyz to say draining", func() (bool, any) {
		code, body := get(base + "/readyz")
		return code == 503 && strings.Contains(body, "draining"), fmt.Sprint(code, " ", body)
	})
	if code, body := get(base + "/healthz"); code != 200 {
		t.Errorf("/healthz while draining: %d %s; the process is alive", code, body)
	}
	if code, out := runProc(t, check, "", "healthcheck", "--ready"); code != 1 || !strings.Contains(out, "draining") {
		t.Errorf("healthcheck --ready while draining exited %d, want 1 saying why: %s", code, out)
	}
	close(release)
	waitSent(t, tg, "the answer in progress", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Slowly, but here.") })
	p.wait(t, time.Minute)
}

// TestHealthcheckExitCodes: healthcheck exits 0 when the probe says 200,
// 1 for anything else (never 2, which Docker reserves), whichever probe
// it asks.
func TestHealthcheckExitCodes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz":
			io.WriteString(w, "ok\n")
		case "/readyz":
			http.Error(w, "not ready: starting", http.StatusServiceUnavailable)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	_, port, _ := strings.Cut(addr, ":")
	closedAddr := freeAddr(t)

	tests := []struct {
		name   string
		listen string
		args   []string
		code   int
		says   string
	}{
		{"alive", addr, nil, 0, "ok"},
		{"alive on every interface is asked on loopback", "0.0.0.0:" + port, nil, 0, "ok"},
		{"not ready", addr, []string{"--ready"}, 1, "not ready: starting"},
		{"nothing listening", closedAddr, nil, 1, "nothing answers"},
		{"listener off", "off", nil, 1, "web.listen"},
		{"bad flag", addr, []string{"--nope"}, 1, "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			e.vars["JARVIS_WEB_LISTEN"] = tt.listen
			e.vars["JARVIS_WEB_BEHIND_PROXY"] = "1" // 0.0.0.0 without TLS
			code, out, errOut := e.jarvis(t, "", append([]string{"healthcheck"}, tt.args...)...)
			if code != tt.code || !strings.Contains(out+errOut, tt.says) {
				t.Errorf("exit %d, want %d saying %q:\n%s%s", code, tt.code, tt.says, out, errOut)
			}
		})
	}
}
