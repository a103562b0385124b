package mcphost

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
)

// testServer is the in-repo MCP test server (internal/fakes/mcptestserver), built
// once for the package.
var testServer string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcphost-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testServer = filepath.Join(dir, "mcptestserver")
	out, err := exec.Command("go", "build", "-o", testServer, "github.com/jarvisbot/jarvisbot/internal/fakes/mcptestserver").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build the MCP test server: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func stdioServer(name string, args ...string) Server {
	return Server{Name: name, Command: testServer, Args: args}
}

// httpServer starts the test server in HTTP mode and returns its URL.
func httpServer(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(testServer, append([]string{"-http", "127.0.0.1:0"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "MCPTEST_URL=") {
		t.Fatalf("test server did not print its URL: %q %v", line, err)
	}
	return strings.TrimSpace(strings.TrimPrefix(line, "MCPTEST_URL="))
}

func dial(t *testing.T, s Server, opt DialOptions) *Conn {
	t.Helper()
	cn, err := Dial(context.Background(), s, opt)
	if err != nil {
		t.Fatalf("dial %s: %v", s.Name, err)
	}
	t.Cleanup(func() { cn.Close() })
	return cn
}

func call(t *testing.T, cn *Conn, tool, args string) Result {
	t.Helper()
	r, err := cn.Call(context.Background(), tool, json.RawMessage(args), 0)
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	return r
}

func toolNames(tools []catalog.SnapshotTool) map[string]bool {
	out := map[string]bool{}
	for _, t := range tools {
		out[t.Name] = true
	}
	return out
}

// TestStdioAndHTTPM1: add/list/call over stdio, streamable HTTP, and SSE
// reached through the fallback.
func TestStdioAndHTTPM1(t *testing.T) {
	cases := map[string]Server{
		"stdio": stdioServer("local", "-instructions", "test instructions"),
		"http":  {Name: "remote", URL: httpServer(t)},
		"sse":   {Name: "legacy", URL: httpServer(t, "-sse")},
	}
	for name, s := range cases {
		t.Run(name, func(t *testing.T) {
			cn := dial(t, s, DialOptions{})
			names := toolNames(cn.Tools())
			for _, want := range []string{"echo", "add", "hang", "crash", "delete_everything"} {
				if !names[want] {
					t.Errorf("tool %s missing from %v", want, names)
				}
			}
			if r := call(t, cn, "echo", `{"text":"hello there"}`); r.Text != "hello there" || r.IsError {
				t.Errorf("echo: %+v", r)
			}
			if r := call(t, cn, "add", `{"a":2,"b":3}`); r.Text != "5" {
				t.Errorf("add: %+v", r)
			}
			if r := call(t, cn, "fail", `{}`); !r.IsError || !strings.Contains(r.Text, "on purpose") {
				t.Errorf("fail: %+v", r)
			}
			if name == "sse" && cn.Transport != SSE {
				t.Errorf("transport %s, want the SSE fallback", cn.Transport)
			}
			if name == "stdio" && cn.Instructions != "test instructions" {
				t.Errorf("instructions %q", cn.Instructions)
			}
		})
	}
}

func TestPaginationM1(t *testing.T) {
	cn := dial(t, stdioServer("paged", "-page-size", "2", "-extra-tools", "7"), DialOptions{})
	names := toolNames(cn.Tools())
	if !names["tool_001"] || !names["tool_007"] || !names["echo"] || len(names) < 17 {
		t.Errorf("listed %d tools over pages: %v", len(names), names)
	}
}

// TestCleanEnvironment: the child sees PATH, HOME and what the config
// names, never the parent's other variables; references are resolved.
func TestCleanEnvironment(t *testing.T) {
	t.Setenv("JARVIS_TEST_PARENT_SECRET", "parent-value")
	s := stdioServer("env")
	s.Env = map[string]string{"GREETING": "hi", "TOKEN": "${MY_TOKEN}"}
	cn := dial(t, s, DialOptions{Lookup: func(n string) (string, bool) { return "resolved-" + n, n == "MY_TOKEN" }})
	for v, want := range map[string]string{"JARVIS_TEST_PARENT_SECRET": "(unset)", "GREETING": "hi", "TOKEN": "resolved-MY_TOKEN"} {
		if r := call(t, cn, "env", `{"name":"`+v+`"}`); r.Text != want {
			t.Errorf("env %s = %q, want %q", v, r.Text, want)
		}
	}
	s.Env = map[string]string{"TOKEN": "${MISSING}"}
	if _, err := Dial(context.Background(), s, DialOptions{}); err == nil || !strings.Contains(err.Error(), "${MISSING}") {
		t.Errorf("missing reference: %v", err)
	}
}

// TestReferencesInArgsAndURLX3: ${NAME} in an argument or in the URL is
// resolved for the connection only: the server gets the value, the Conn's
// settings and errors keep the reference.
func TestReferencesInArgsAndURLX3(t *testing.T) {
	const key = "arg-and-url-key-value"
	lookup := func(n string) (string, bool) { return key, n == "THE_KEY" }
	cn := dial(t, stdioServer("argref", "-key=${THE_KEY}"), DialOptions{Lookup: lookup})
	if r := call(t, cn, "key", `{}`); r.Text != key {
		t.Errorf("stdio key = %q, want the resolved value", r.Text)
	}
	u := httpServer(t, "-key", key)
	cn = dial(t, Server{Name: "urlref", URL: u + "?api_key=${THE_KEY}"}, DialOptions{Lookup: lookup})
	if r := call(t, cn, "key", `{}`); r.Text != key {
		t.Errorf("http key = %q", r.Text)
	}
	_, err := Dial(context.Background(), Server{Name: "urlref", URL: u + "?api_key=${OTHER}"}, DialOptions{Lookup: lookup})
	if err == nil || !strings.Contains(err.Error(), "${OTHER}") {
		t.Errorf("missing reference in the URL: %v", err)
	}
	_, err = Dial(context.Background(), Server{Name: "urlref", URL: u + "?api_key=wrong-${THE_KEY}"}, DialOptions{Lookup: lookup})
	if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "${THE_KEY}") {
		t.Errorf("a refused URL is quoted with its reference, never its value: %v", err)
	}
	_, err = Dial(context.Background(), stdioServer("argref", "-key=${OTHER}"), DialOptions{Lookup: lookup})
	if err == nil || !strings.Contains(err.Error(), "${OTHER}") {
		t.Errorf("missing reference in an argument: %v", err)
	}
}

// TestHungToolM2: a hung tool hits its deadline while another server's
// call succeeds at the same time.
func TestHungToolM2(t *testing.T) {
	hung := stdioServer("hung")
	hung.Timeout = 400 * time.Millisecond
	a := dial(t, hung, DialOptions{})
	b := dial(t, stdioServer("healthy"), DialOptions{})
	var wg sync.WaitGroup
	var hungErr error
	var hungTook time.Duration
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		_, hungErr = a.Call(context.Background(), "hang", json.RawMessage(`{}`), 0)
		hungTook = time.Since(start)
	}()
	waitFor(t, "the hung call to reach the server", stderrSays(a, "mcptest: hanging"))
	if r := call(t, b, "echo", `{"text":"still here"}`); r.Text != "still here" {
		t.Errorf("other server during a hang: %+v", r)
	}
	if r := call(t, a, "echo", `{"text":"same server"}`); r.Text != "same server" {
		t.Errorf("same server, other call, during a hang: %+v", r)
	}
	wg.Wait()
	if hungErr == nil || !strings.Contains(hungErr.Error(), "did not answer within 400ms") {
		t.Errorf("hung call: %v", hungErr)
	}
	if hungTook > 5*time.Second {
		t.Errorf("hung call took %s", hungTook)
	}
	// The server still answered the ping after the deadline: one hung tool
	// is not a hung server, and the session goes on (M3).
	if r := call(t, a, "echo", `{"text":"after"}`); r.Text != "after" {
		t.Errorf("same server after its hung call: %+v", r)
	}
	// The turn's own context cancels a call in flight too.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelled := make(chan error, 1)
	go func() {
		_, err := b.Call(ctx, "hang", json.RawMessage(`{}`), 0)
		cancelled <- err
	}()
	waitFor(t, "the call to be cancelled to reach the server", stderrSays(b, "mcptest: hanging"))
	cancel()
	select {
	case err := <-cancelled:
		if err == nil || !strings.Contains(err.Error(), "cancelled") {
			t.Errorf("cancelled call: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a call in flight went on after its context was cancelled")
	}
}

func TestResultCap(t *testing.T) {
	cn := dial(t, stdioServer("big"), DialOptions{})
	r, err := cn.Call(context.Background(), "big", json.RawMessage(`{"bytes":200000}`), 10000)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Cut || r.Size != 200000 || len(r.Text) > 10200 || !strings.Contains(r.Text, "[result cut: the first 9 KiB of 195 KiB are shown]") {
		t.Errorf("cut result: cut=%v size=%d len=%d tail=%q", r.Cut, r.Size, len(r.Text), r.Text[len(r.Text)-60:])
	}
}

// TestBadServers: every kind of server that does not answer is refused
// with a message that says why.
func TestBadServers(t *testing.T) {
	fast := DialOptions{InitTimeout: 1500 * time.Millisecond}
	cases := []struct {
		name string
		srv  Server
		want []string
	}{
		{"not found", Server{Name: "nope", Command: "no-such-mcp-server-binary"}, []string{`command "no-such-mcp-server-binary" not found`}},
		{"exits", stdioServer("dies", "-exit-at-start", "7"), []string{"exited with status 7", "cannot open database"}},
		{"garbage only", stdioServer("noisy", "-garbage", "-hang-initialize"), []string{"did not answer initialize", "not MCP JSON-RPC", "this is not json"}},
		{"hangs", stdioServer("slow", "-hang-initialize"), []string{"did not answer initialize"}},
		{"html", Server{Name: "page", URL: httpServer(t, "-html")}, []string{"HTML page", "text/html"}},
		{"refused", Server{Name: "closed", URL: "http://127.0.0.1:1/mcp"}, []string{"cannot be reached", "refused"}},
		{"bad name", Server{Name: "Bad Name", Command: "x"}, []string{"server name"}},
		{"no command", Server{Name: "empty"}, []string{"give a command"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			cn, err := Dial(context.Background(), c.srv, fast)
			if err == nil {
				cn.Close()
				t.Fatal("dial succeeded")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if took := time.Since(start); took > 6*time.Second {
				t.Errorf("took %s", took)
			}
		})
	}
}

// waitFor polls cond until it holds; after 10 s it fails the test,
// naming what it waited for and what cond last saw.
func waitFor(t *testing.T, what string, cond func() (ok bool, saw any)) {
	t.Helper()
	testwait.For(t, 10*time.Second, what, cond, testwait.WithInterval(20*time.Millisecond))
}

// stderrSays is a condition for waitFor: a stdio server's last stderr
// lines hold want.
func stderrSays(cn *Conn, want string) func() (bool, any) {
	return func() (bool, any) {
		got := cn.proc.stderr.lines(5)
		return strings.Contains(got, want), "stderr: " + got
	}
}

// toolsOf is a condition for waitFor: the connected tools of a server in
// the catalog satisfy ok.
func toolsOf(cat *catalog.Catalog, server string, ok func(map[string]bool) bool) func() (bool, any) {
	return func() (bool, any) {
		tools := connectedTools(cat, server)
		return ok(tools), tools
	}
}

func connectedTools(cat *catalog.Catalog, server string) map[string]bool {
	out := map[string]bool{}
	for _, cp := range cat.View().Capabilities() {
		if cp.Server == server && cp.Connected {
			out[cp.Tool] = true
		}
	}
	return out
}

// TestHostCrashRestartM3: a crashed server's tools leave the catalog at
// once and come back when it has been restarted; list_changed re-lists.
func TestHostCrashRestartM3(t *testing.T) {
	cat := catalog.New()
	h := NewHost(cat, HostOptions{MinBackoff: 200 * time.Millisecond, MaxBackoff: time.Second})
	defer h.Close()
	if err := h.Start(context.Background(), stdioServer("flaky")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the server to come up", toolsOf(cat, "flaky", func(m map[string]bool) bool { return m["echo"] }))

	r, err := h.Call(context.Background(), "flaky", "add_tool", json.RawMessage(`{"name":"brand_new"}`))
	if err != nil || r.IsError {
		t.Fatalf("add_tool: %+v %v", r, err)
	}
	waitFor(t, "the new tool after list_changed", toolsOf(cat, "flaky", func(m map[string]bool) bool { return m["brand_new"] }))

	_, err = h.Call(context.Background(), "flaky", "crash", json.RawMessage(`{}`))
	if err == nil {
		t.Fatal("crash call succeeded")
	}
	waitFor(t, "the tools to leave", toolsOf(cat, "flaky", func(m map[string]bool) bool { return len(m) == 0 }))
	if st := h.Status()[0]; st.State != StateDown && st.State != StateUp {
		t.Errorf("status after crash: %+v", st)
	}
	if _, err := h.Call(context.Background(), "flaky", "echo", json.RawMessage(`{"text":"x"}`)); err == nil {
		t.Log("call right after the crash succeeded: the restart was already done")
	} else if !strings.Contains(err.Error(), "flaky") {
		t.Errorf("call while down: %v", err)
	}
	waitFor(t, "the restart", toolsOf(cat, "flaky", func(m map[string]bool) bool { return m["echo"] }))
	if st := h.Status()[0]; st.Restarts < 1 || st.State != StateUp {
		t.Errorf("status after restart: %+v", st)
	}
	if r, err := h.Call(context.Background(), "flaky", "echo", json.RawMessage(`{"text":"back"}`)); err != nil || r.Text != "back" {
		t.Errorf("after restart: %+v %v", r, err)
	}
	h.Stop("flaky")
	if _, ok := cat.View().Server("flaky"); ok {
		t.Error("a stopped server is still in the catalog")
	}
}

// TestRestartBackoffFollowsTheClockM3: the wait before each restart of
// a server that cannot start doubles from MinBackoff to MaxBackoff on the
// injected clock: no restart comes before the clock reaches it, and none
// needs real time to pass.
func TestRestartBackoffFollowsTheClockM3(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	h := NewHost(catalog.New(), HostOptions{MinBackoff: time.Second, MaxBackoff: 4 * time.Second, Clock: clk})
	defer h.Close()
	h.Start(context.Background(), stdioServer("broken", "-exit-at-start", "2"))
	for i, wait := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second} {
		waitRestart(t, h, clk, i)
		clk.Advance(wait - time.Millisecond) // runs whatever came due, before it returns
		if st, p := h.Status()[0], clk.Pending(); st.Restarts != i || p != 1 {
			t.Fatalf("%s into wait %d (%s): %+v, %d timers; want the wait still running", wait-time.Millisecond, i+1, wait, st, p)
		}
		clk.Advance(time.Millisecond)
	}
	waitRestart(t, h, clk, 4)
}

// TestHealthySessionResetsTheBackoffM3: a server that crashes right after
// a restart waits twice as long the next time; one that stayed up longer
// than MaxBackoff (on the clock) is restarted after MinBackoff again.
func TestHealthySessionResetsTheBackoffM3(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	cat := catalog.New()
	h := NewHost(cat, HostOptions{MinBackoff: time.Second, MaxBackoff: 4 * time.Second, Clock: clk})
	defer h.Close()
	h.Start(context.Background(), stdioServer("flaky"))
	crashAfter := func(restarts int, up time.Duration) {
		t.Helper()
		waitFor(t, "the server to be up", func() (bool, any) {
			st := h.Status()[0]
			return st.State == StateUp && st.Restarts == restarts, st
		})
		clk.Advance(up)
		h.Call(context.Background(), "flaky", "crash", json.RawMessage(`{}`))
		waitRestart(t, h, clk, restarts)
	}
	for i, tc := range []struct {
		up, wait time.Duration
	}{
		{0, time.Second},     // the first wait
		{0, 2 * time.Second}, // a crash at once: doubled
		{4*time.Second + time.Millisecond, time.Second}, // after a healthy session: from the start
	} {
		crashAfter(i, tc.up)
		clk.Advance(tc.wait - time.Millisecond)
		if st, p := h.Status()[0], clk.Pending(); st.Restarts != i || p != 1 {
			t.Fatalf("crash %d: %s into the %s wait: %+v, %d timers; want the wait still running", i+1, tc.wait-time.Millisecond, tc.wait, st, p)
		}
		clk.Advance(time.Millisecond)
	}
	waitFor(t, "the third restart", func() (bool, any) { st := h.Status()[0]; return st.Restarts == 3, st })
}

// waitRestart waits until the host waits on clk to restart its one
// server for the time after the given number of restarts.
func waitRestart(t *testing.T, h *Host, clk *clock.Fake, restarts int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("the wait before restart %d", restarts+1), func() (bool, any) {
		st := h.Status()[0]
		return st.State == StateDown && st.Restarts == restarts && clk.Pending() == 1, fmt.Sprintf("%+v, %d timers", st, clk.Pending())
	})
}

// TestHostUnreachableKeepsTrying: a server that cannot start is reported
// down with the reason and retried; it never blocks another server.
func TestHostUnreachableKeepsTrying(t *testing.T) {
	cat := catalog.New()
	h := NewHost(cat, HostOptions{MinBackoff: 50 * time.Millisecond, MaxBackoff: 100 * time.Millisecond})
	defer h.Close()
	h.Start(context.Background(), stdioServer("broken", "-exit-at-start", "2"))
	h.Start(context.Background(), stdioServer("fine"))
	waitFor(t, "the good server", toolsOf(cat, "fine", func(m map[string]bool) bool { return m["echo"] }))
	waitFor(t, "retries of the broken one", func() (bool, any) {
		sts := h.Status()
		for _, st := range sts {
			if st.Name == "broken" && st.Restarts >= 2 && st.State == StateDown && st.Err != nil && strings.Contains(st.Err.Error(), "status 2") {
				return true, sts
			}
		}
		return false, sts
	})
}

// TestHostUpdatesInstructionsC5: a server the catalog knows already (from
// the store, with what it said last time) takes what it says at this
// initialize, so its derived card reads the new instructions.
func TestHostUpdatesInstructionsC5(t *testing.T) {
	cat := catalog.New()
	if err := cat.SetServer(catalog.Server{ID: "guide", Instructions: "what it said last week"}, nil); err != nil {
		t.Fatal(err)
	}
	h := NewHost(cat, HostOptions{MinBackoff: 200 * time.Millisecond, MaxBackoff: time.Second})
	defer h.Close()
	if err := h.Start(context.Background(), stdioServer("guide", "-instructions", "Directions and travel times.")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the new instructions", func() (bool, any) {
		s, ok := cat.View().Server("guide")
		return ok && s.Instructions == "Directions and travel times.", s
	})
}
