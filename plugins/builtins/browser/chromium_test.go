package browser

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
)

// chromiumOrSkip returns the Chromium these tests run, or skips them:
// the engine is optional, and CI installs Chromium to run them.
func chromiumOrSkip(t *testing.T) string {
	t.Helper()
	for _, name := range chromiumNames() {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	t.Skip("no Chromium on PATH (apt install chromium): the chromium engine is not tested")
	return ""
}

// scripted is a page whose text only a browser that runs JavaScript sees.
const scripted = `<!doctype html><html><head><title>Loading…</title></head><body>
<div id="app">Please enable JavaScript.</div>
<script>
document.title = "Otter census 2026";
var p = document.createElement("p");
p.textContent = "The river otters counted this spring number forty-two, up from thirty last year, says the script.";
document.getElementById("app").replaceChildren(p);
var a = document.createElement("a");
a.href = "/methods"; a.textContent = "How we counted";
document.body.appendChild(a);
</script></body></html>`

func TestChromiumRendersScriptWrittenTextP6(t *testing.T) {
	exe := chromiumOrSkip(t)
	s := newSite(t, map[string]http.HandlerFunc{
		"/census":  htmlPage(scripted),
		"/methods": htmlPage(`<html><head><title>Methods</title></head><body><p>We walked the banks at dawn.</p></body></html>`),
	})
	b := New(Options{Engine: EngineChromium, ChromiumPath: exe, Allow: allowLoopback, Timeout: 60 * time.Second})
	text := mustCall(t, b, "c", map[string]any{"action": "open", "url": s.URL + "/census"})
	contains(t, text, "Title: Otter census 2026", "Rendered with chromium", "forty-two", "How we counted — "+s.URL+"/methods")
	if ua, _ := s.ua.Load().(string); ua != DefaultUserAgent {
		t.Errorf("Chromium sent User-Agent %q, want %q", ua, DefaultUserAgent)
	}
	text = mustCall(t, b, "c", map[string]any{"action": "find", "query": "otters counted"})
	contains(t, text, "The river otters counted this spring number forty-two")
	text = mustCall(t, b, "c", map[string]any{"action": "follow", "link": linkNumber(t, mustCall(t, b, "c", map[string]any{"action": "open", "url": s.URL + "/census"}), s.URL+"/methods")})
	contains(t, text, "Title: Methods", "We walked the banks at dawn.")
}

// TestChromiumKeepsTheAddressRulesP6: Chromium reaches the network only
// through the guard, so loopback (which Chromium would otherwise reach
// directly) and a redirect into a private address are refused with the
// same words as the Go engine.
func TestChromiumKeepsTheAddressRulesP6(t *testing.T) {
	exe := chromiumOrSkip(t)
	s := newSite(t, map[string]http.HandlerFunc{
		"/page": htmlPage(scripted),
		"/to-metadata": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		},
	})
	closed := New(Options{Engine: EngineChromium, ChromiumPath: exe, Timeout: 60 * time.Second})
	_, err := call(t, closed, "c", map[string]any{"action": "open", "url": s.URL + "/page"})
	wantErr(t, err, jarvisbot.EFORBIDDEN, "refused to connect to 127.0.0.1", "browser.allow")
	if n := s.hits.Load(); n != 0 {
		t.Fatalf("the loopback server got %d requests from a browser not allowed to reach it", n)
	}
	open := New(Options{Engine: EngineChromium, ChromiumPath: exe, Allow: allowLoopback, Timeout: 60 * time.Second})
	_, err = call(t, open, "c", map[string]any{"action": "open", "url": s.URL + "/to-metadata"})
	wantErr(t, err, jarvisbot.EFORBIDDEN, "169.254.169.254")

	// Names are resolved by the guard, not by Chromium: one that resolves
	// to loopback is refused, one that does not resolve says so.
	port := s.Listener.Addr().(*net.TCPAddr).Port
	open.guard.lookup = table(map[string]string{"rebound.example.com": "127.0.0.2"})
	_, err = call(t, open, "c", map[string]any{"action": "open", "url": fmt.Sprintf("http://rebound.example.com:%d/page", port)})
	wantErr(t, err, jarvisbot.EFORBIDDEN, "rebound.example.com (127.0.0.2)")
	_, err = call(t, open, "c", map[string]any{"action": "open", "url": "https://nowhere.example.com/"})
	wantErr(t, err, jarvisbot.EUNAVAILABLE, "cannot look up nowhere.example.com")
	if n := s.hits.Load(); n != 1 {
		t.Errorf("the server got %d requests, want 1 (the redirect)", n)
	}
}

func TestChromiumMissingSaysWhatToInstallP6(t *testing.T) {
	b := New(Options{Engine: EngineChromium, ChromiumPath: "/nonexistent/chromium", Allow: allowLoopback})
	wantErr(t, openErr(t, b, "http://127.0.0.1:1/"), jarvisbot.EUNAVAILABLE, "apt install chromium", "set browser.engine to go")
}

// TestProxyCloseEndsItsTunnelsP6: the proxy Chromium goes out through
// lives as long as one call; closing it ends the tunnels still open and
// waits for their goroutines, so a rendering leaves nothing running.
func TestProxyCloseEndsItsTunnelsP6(t *testing.T) {
	// A server that accepts a connection and never speaks: a tunnel to it
	// stays open until someone closes it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	b := New(Options{Allow: allowLoopback})
	px, err := startProxy(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", px.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", ln.Addr(), ln.Addr())
	br := bufio.NewReader(c)
	status, err := br.ReadString('\n')
	if err != nil || !strings.Contains(status, " 200 ") {
		t.Fatalf("CONNECT answered %q, %v", status, err)
	}
	if blank, err := br.ReadString('\n'); err != nil || blank != "\r\n" {
		t.Fatalf("CONNECT's answer goes on with %q, %v", blank, err)
	}
	up := <-accepted
	defer up.Close()

	done := make(chan struct{})
	go func() { px.close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("closing the proxy did not end an open tunnel")
	}
	if err := c.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := br.ReadByte(); err == nil || isTimeout(err) {
		t.Errorf("the tunnel's client side is still open after close: %v", err)
	}

	// A CONNECT to a refused address is answered 403 and remembered.
	px, err = startProxy(context.Background(), New(Options{}))
	if err != nil {
		t.Fatal(err)
	}
	defer px.close()
	c2, err := net.Dial("tcp", px.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	fmt.Fprintf(c2, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", ln.Addr(), ln.Addr())
	status, err = bufio.NewReader(c2).ReadString('\n')
	if err != nil || !strings.Contains(status, " 403 ") {
		t.Fatalf("CONNECT to loopback answered %q, %v", status, err)
	}
	wantErr(t, px.refusal(), jarvisbot.EFORBIDDEN, "refused to connect to 127.0.0.1")
}
