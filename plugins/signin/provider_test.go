package signin_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakeoauth"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
)

// google is a provider like Google: a "Desktop app" client with a secret,
// no dynamic registration, no resource indicator, offline access asked.
func googleLike(e *env) signin.Provider {
	e.as.AddConfidentialClient("desktop-client", "desktop-secret")
	e.as.AddResource("") // no RFC 8707 resource: Google has none
	return signin.Provider{
		Name:         "Google",
		AuthURL:      e.as.URL + "/authorize",
		TokenURL:     e.as.URL + "/token",
		ClientID:     "desktop-client",
		ClientSecret: "desktop-secret",
		AuthParams:   map[string]string{"access_type": "offline", "prompt": "consent"},
	}
}

// api is a resource server that accepts the fake's live tokens, like
// Google's APIs, and counts what it refused.
func api(t *testing.T, as *fakeoauth.AuthServer) (string, *atomic.Int32) {
	var refused atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if _, _, ok := as.Introspect(tok); !ok {
			refused.Add(1)
			http.Error(w, `{"error":{"code":401}}`, http.StatusUnauthorized)
			return
		}
		body, _ := io.ReadAll(r.Body)
		_, _ = io.WriteString(w, "ok "+string(body))
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &refused
}

// TestProviderSignInP3P4 pins a built-in plugin's sign-in at a provider
// known in advance: PKCE, the owner's client id and secret, the provider's
// extra parameters, no resource; then its client renews a refused token
// once and sends the request again with its body, and a revoked sign-in
// needs attention.
func TestProviderSignInP3P4(t *testing.T) {
	e := newEnv(t, setup{})
	p := googleLike(e)
	ctx := context.Background()
	authURL, err := e.m.BeginProvider(ctx, "google", p, []string{"calendar", "mail"})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(authURL)
	q := u.Query()
	for k, want := range map[string]string{"client_id": "desktop-client", "code_challenge_method": "S256", "access_type": "offline", "prompt": "consent", "scope": "calendar mail"} {
		if q.Get(k) != want {
			t.Errorf("authorization URL %s=%q, want %q", k, q.Get(k), want)
		}
	}
	if q.Has("resource") || strings.Contains(authURL, "desktop-secret") {
		t.Errorf("authorization URL carries a resource or the client secret: %s", authURL)
	}
	redirect := e.as.Approve(authURL)
	if st, body := e.callback(redirect); st != http.StatusOK {
		t.Fatalf("callback: %d %s", st, body)
	}
	if err := e.m.Wait(ctx, "google"); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	for _, r := range e.as.TokenRequests() {
		if r.Has("resource") {
			t.Errorf("a token request sent resource=%q to a provider without resources", r.Get("resource"))
		}
	}
	scopes, ok, err := e.m.Scopes(ctx, "google")
	if err != nil || !ok || strings.Join(scopes, " ") != "calendar mail" {
		t.Errorf("Scopes = %v, %v, %v", scopes, ok, err)
	}

	base, refused := api(t, e.as)
	hc := e.m.Client("google", nil, 0)
	post := func() (string, error) {
		resp, err := hc.Post(base, "text/plain", strings.NewReader("the body"))
		if err != nil {
			e.record(err.Error())
			return "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.Status + " " + string(b), nil
	}
	if got, err := post(); err != nil || got != "200 OK ok the body" {
		t.Fatalf("first call: %q, %v", got, err)
	}
	// The access token is revoked: the 401 renews it and the request goes
	// again, body and all, and the caller sees one answer.
	e.as.Revoke(e.mustTokenOf("google"))
	if got, err := post(); err != nil || got != "200 OK ok the body" {
		t.Fatalf("call after the token was revoked: %q, %v", got, err)
	}
	if refused.Load() != 1 {
		t.Errorf("the API refused %d requests, want 1", refused.Load())
	}
	// The whole sign-in is revoked: the call fails needing attention.
	e.as.Revoke(e.grantOf("google").Token.RefreshToken)
	if _, err := post(); !errors.Is(err, signin.ErrNeedsAttention) {
		t.Fatalf("a call on a revoked sign-in: %v, want ErrNeedsAttention", err)
	}
}

// TestProviderNeedsAClientP3: without the owner's client id the sign-in
// does not start and says what is missing.
func TestProviderNeedsAClientP3(t *testing.T) {
	e := newEnv(t, setup{})
	p := googleLike(e)
	p.ClientID = ""
	_, err := e.m.BeginProvider(context.Background(), "google", p, nil)
	if err == nil || !strings.Contains(err.Error(), "client id") {
		t.Fatalf("BeginProvider without a client id: %v", err)
	}
	p = googleLike(e)
	p.TokenURL = "http://accounts.example.com/token"
	if _, err := e.m.BeginProvider(context.Background(), "google", p, nil); err == nil {
		t.Fatal("a plain-http token URL off loopback was accepted")
	}
}
