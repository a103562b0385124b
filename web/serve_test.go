package web

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/httpsite"
)

// TestReadyzSaysWhatIsNotServedX4: a listener whose default address was
// taken is said on /readyz: ready with a note for the MCP endpoint, not
// ready for the webhook, without which the replica hears nothing.
func TestReadyzSaysWhatIsNotServedX4(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	site := httpsite.Site{What: "the MCP endpoint for apps", Setting: "mcp_server.listen or JARVIS_MCP_LISTEN", Addr: taken.Addr().String()}
	ln, unbound, err := site.Bind()
	if err != nil || ln != nil || unbound == "" {
		t.Fatalf("Bind() = %v, %q, %v; want no listener, no error and the reason", ln, unbound, err)
	}

	var r app.Readiness
	r.Started.Store(true)
	probes := Probes{Ready: func(ctx context.Context) error {
		return r.Check(ctx, func(context.Context) error { return nil }, slog.New(slog.DiscardHandler))
	}, Notes: r.Notes}
	readyz := func() (int, string) {
		rec := httptest.NewRecorder()
		probes.Wrap(http.NotFoundHandler()).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		return rec.Code, rec.Body.String()
	}
	r.NotServed(unbound, false)
	if code, body := readyz(); code != http.StatusOK || !strings.Contains(body, unbound) {
		t.Errorf("/readyz with the MCP endpoint left out: %d %q, want 200 saying why", code, body)
	}
	r.NotServed("the Telegram webhook is not served: its default address 127.0.0.1:8443 is taken", true)
	if code, body := readyz(); code != http.StatusServiceUnavailable || !strings.Contains(body, "Telegram webhook") {
		t.Errorf("/readyz with the webhook left out: %d %q, want 503 saying why", code, body)
	}
}

// TestDashboardAnswersToItsOwnNamesW1: the names a browser may send for
// the dashboard's address, and web.url's.
func TestDashboardAnswersToItsOwnNamesW1(t *testing.T) {
	for _, tc := range []struct {
		bound, public string
		want, not     []string
	}{
		{"127.0.0.1:8780", "", []string{"127.0.0.1:8780", "localhost:8780", "[::1]:8780"}, []string{"localhost", "evil.example:8780"}},
		{"127.0.0.1:80", "", []string{"127.0.0.1:80", "localhost", "127.0.0.1", "[::1]"}, []string{"evil.example"}},
		{"127.0.0.1:8780", "https://jarvis.example.org", []string{"jarvis.example.org", "localhost:8780"}, []string{"jarvis.example.org:8780"}},
		{"10.0.0.5:8780", "", []string{"10.0.0.5:8780"}, []string{"localhost:8780"}},
	} {
		got := hosts(tc.bound, tc.public)
		for _, h := range tc.want {
			if !slices.Contains(got, h) {
				t.Errorf("hosts(%q, %q) = %q: lacks %q", tc.bound, tc.public, got, h)
			}
		}
		for _, h := range tc.not {
			if slices.Contains(got, h) {
				t.Errorf("hosts(%q, %q) = %q: has %q", tc.bound, tc.public, got, h)
			}
		}
	}
}
