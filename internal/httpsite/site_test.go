package httpsite

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestDefaultAddressTakenIsAWarningX4: the default address taken (another
// jarvisbot, another program) costs only that listener: no error, the
// reason for the caller to warn of and to say on /readyz; the owner's own
// address taken stops serve.
func TestDefaultAddressTakenIsAWarningX4(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	site := Site{What: "the MCP endpoint for apps", Setting: "mcp_server.listen or JARVIS_MCP_LISTEN", Addr: taken.Addr().String()}
	ln, unbound, err := site.Bind()
	if err != nil || ln != nil || !strings.Contains(unbound, "default address "+site.Addr+" is taken") || !strings.Contains(unbound, site.Setting) {
		t.Fatalf("Bind() = %v, %q, %v; want no listener, no error and the reason", ln, unbound, err)
	}
	site.Explicit = true
	if _, _, err := site.Bind(); err == nil || !strings.Contains(err.Error(), "cannot listen on "+site.Addr) {
		t.Errorf("the owner's own address: err = %v, want it to stop serve", err)
	}
}

// TestOpenBindsBeforeServingX4: Open binds the address and the site then
// serves on that very listener; the default address taken gives no
// listener and the reason, warned of; a certificate that cannot be loaded
// is an error naming it.
func TestOpenBindsBeforeServingX4(t *testing.T) {
	var logged strings.Builder
	log := slog.New(slog.NewTextHandler(&logged, nil))
	site, unbound, err := Site{What: "the test endpoint", Setting: "test.listen", Addr: "127.0.0.1:0", Path: "/x"}.Open(log)
	if err != nil || unbound != "" || site.Listener == nil {
		t.Fatalf("Open() = %+v, %q, %v; want a bound site", site, unbound, err)
	}
	ep, _, err := Serve(site, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") }), log)
	if err != nil {
		t.Fatal(err)
	}
	if want := "http://" + site.Listener.Addr().String() + "/x"; ep.URL != want {
		t.Errorf("URL = %q, want %q", ep.URL, want)
	}
	if !strings.Contains(logged.String(), "the test endpoint listening") {
		t.Errorf("no listening line in the log:\n%s", logged.String())
	}
	if msg, err := Probe(context.Background(), strings.TrimSuffix(ep.URL, "/x")+"/"); err != nil || msg != "ok" {
		t.Errorf("Probe() = %q, %v; want ok", msg, err)
	}
	ep.Close()
	if Answers(context.Background(), site.Listener.Addr().String()) {
		t.Error("something still answers after Close")
	}
	var none *Endpoint
	none.Close() // a listener that was off

	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	site, unbound, err = Site{What: "the test endpoint", Setting: "test.listen", Addr: taken.Addr().String()}.Open(log)
	if err != nil || site.Listener != nil || unbound == "" || !strings.Contains(logged.String(), "is not served: its default address") {
		t.Errorf("default address taken: Open() = %+v, %q, %v; want no listener, the reason warned of\n%s", site, unbound, err, logged.String())
	}
	bad := filepath.Join(t.TempDir(), "missing.pem")
	_, _, err = Site{What: "the test endpoint", Addr: "127.0.0.1:0", Cert: bad, Key: bad}.Open(log)
	if err == nil || !strings.Contains(err.Error(), "TLS certificate "+bad+" cannot be loaded") {
		t.Errorf("a missing certificate: err = %v", err)
	}
}

// TestLocalURL: a listener on every interface is asked on loopback, in
// its address family; one on a named address is asked there.
func TestLocalURL(t *testing.T) {
	for _, tc := range []struct {
		addr   string
		secure bool
		want   string
	}{
		{"127.0.0.1:8780", false, "http://127.0.0.1:8780/healthz"},
		{"0.0.0.0:8780", false, "http://127.0.0.1:8780/healthz"},
		{":8780", true, "https://127.0.0.1:8780/healthz"},
		{"[::]:8780", false, "http://[::1]:8780/healthz"},
		{"10.0.0.5:443", true, "https://10.0.0.5:443/healthz"},
	} {
		if got, err := LocalURL(tc.addr, tc.secure, "/healthz"); err != nil || got != tc.want {
			t.Errorf("LocalURL(%q, %v) = %q, %v; want %q", tc.addr, tc.secure, got, err, tc.want)
		}
	}
	if _, err := LocalURL("8780", false, "/healthz"); err == nil {
		t.Error("an address without a port: no error")
	}
}
