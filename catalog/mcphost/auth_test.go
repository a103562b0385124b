package mcphost

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRefusedSignInAdviceP3: a server that answers 401 or 403 gets advice
// that fits how it was added: a hand-added server needs a header with a
// token; a signed-in plugin's server (Plugin set, or its sign-in's HTTP
// client) needs its sign-in renewed, never a header added by hand.
func TestRefusedSignInAdviceP3(t *testing.T) {
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "no", status)
		}))
		defer hs.Close()
		cases := []struct {
			name      string
			srv       Server
			want, not string
		}{
			{"by hand", Server{Name: "hand", URL: hs.URL}, `"Authorization: Bearer ${TOKEN}"`, "plugins signin"},
			{"plugin", Server{Name: "notion", URL: hs.URL, Plugin: "notion"}, "jarvisbot plugins signin notion", "header"},
			{"sign-in client", Server{Name: "linear", URL: hs.URL, Client: &http.Client{}}, "jarvisbot plugins signin", "header"},
		}
		for _, c := range cases {
			t.Run(c.name+" "+http.StatusText(status), func(t *testing.T) {
				_, err := Dial(context.Background(), c.srv, DialOptions{})
				if err == nil {
					t.Fatal("dial succeeded")
				}
				if msg := err.Error(); !strings.Contains(msg, c.want) || strings.Contains(msg, c.not) || !strings.Contains(msg, http.StatusText(status)) {
					t.Errorf("error %q: want %q and the status, not %q", msg, c.want, c.not)
				}
			})
		}
	}
}
