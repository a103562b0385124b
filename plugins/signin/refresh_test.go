package signin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakeoauth"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
	"github.com/jarvisbot/jarvisbot/store/secrets"
)

// process returns a Manager standing for a second jarvisbot process (the
// CLI beside serve): its own keyring handle on the same file keyring
// directory, its own Manager, the same clock.
func (e *env) process() *signin.Manager {
	e.t.Helper()
	ring, err := secrets.Open(secrets.Options{Backend: "file", Dir: e.ring.Dir(), Password: func() (string, error) { return "test", nil }})
	if err != nil {
		e.t.Fatal(err)
	}
	m := signin.NewManager(signin.Options{Keyring: ring, Now: e.clock.Now, Logger: slog.New(slog.NewTextHandler(e.logs, nil))})
	e.t.Cleanup(func() { m.Close() })
	return m
}

// refreshes counts the refresh requests the authorization server got.
func (e *env) refreshes() int {
	n := 0
	for _, r := range e.as.TokenRequests() {
		if r.Get("grant_type") == "refresh_token" {
			n++
		}
	}
	return n
}

// TestRefreshAcrossProcessesP4 pins that two processes sharing the keyring
// and renewing the same expired sign-in at once, against a server that
// rotates refresh tokens and ends a sign-in whose old refresh token comes
// back, both end with a working token: one refreshes, the other waits for
// it and takes the renewed token from the keyring.
func TestRefreshAcrossProcessesP4(t *testing.T) {
	e := newEnv(t, setup{as: []fakeoauth.Option{fakeoauth.WithAccessTokenLifetime(5 * time.Minute)}})
	e.signIn()
	managers := []*signin.Manager{e.m, e.process()}
	const rounds = 4
	for round := range rounds {
		e.clock.Advance(5 * time.Minute)
		start := make(chan struct{})
		var wg sync.WaitGroup
		toks := make([]string, 6)
		errs := make([]error, len(toks))
		for i := range toks {
			m := managers[i%len(managers)]
			wg.Go(func() {
				<-start
				toks[i], errs[i] = m.Token(context.Background(), plugin)
			})
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				e.record(err.Error())
				t.Fatalf("round %d: process %d: Token: %v", round, i%len(managers), err)
			}
			if _, _, ok := e.as.Introspect(toks[i]); !ok {
				t.Fatalf("round %d: process %d got a token the server does not accept", round, i%len(managers))
			}
		}
		if g := e.grant(); g.Token == nil || g.Token.AccessToken != toks[0] {
			t.Fatalf("round %d: the keyring does not hold the renewed token: %v", round, g)
		}
	}
	if n := e.refreshes(); n != rounds {
		t.Errorf("%d refreshes in %d rounds, want one per round", n, rounds)
	}
	if strings.Contains(e.logs.String(), "needs attention") {
		t.Errorf("the sign-in was marked as needing attention:\n%s", e.logs)
	}
	// The lock files beside the keyring are not secrets.
	names, err := e.ring.Names(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if strings.Contains(n, "lock") {
			t.Errorf("the keyring lists %q as a secret", n)
		}
	}
}

// TestRefreshRereadsKeyringBeforeGivingUpP4 pins that a refresh refused
// because another process (one that does not share the lock) renewed the
// sign-in meanwhile takes the renewed token from the keyring instead of
// ending the sign-in.
func TestRefreshRereadsKeyringBeforeGivingUpP4(t *testing.T) {
	var e *env
	var once sync.Once
	var renewed string
	// Just before this process's refresh reaches the server, another one
	// renews the sign-in with the same refresh token and stores the result.
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.Method != http.MethodPost || r.Body == nil {
			return http.DefaultTransport.RoundTrip(r)
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if form, _ := url.ParseQuery(string(body)); form.Get("grant_type") == "refresh_token" {
			once.Do(func() { renewed = e.renewElsewhere(form.Get("refresh_token")) })
		}
		return http.DefaultTransport.RoundTrip(r)
	})
	e = newEnv(t, setup{
		as:      []fakeoauth.Option{fakeoauth.WithAccessTokenLifetime(5 * time.Minute), fakeoauth.WithoutReuseDetection()},
		options: func(o *signin.Options) { o.HTTPClient = &http.Client{Transport: rt} },
	})
	e.signIn()
	e.clock.Advance(5 * time.Minute)
	tok, err := e.token()
	if err != nil {
		t.Fatalf("Token after another process renewed the sign-in: %v", err)
	}
	if renewed == "" || tok != renewed {
		t.Fatalf("Token = %.6s…, want the other process's renewed token %.6s…", tok, renewed)
	}
	if g := e.grant(); g.Token == nil || g.Token.AccessToken != renewed {
		t.Fatalf("the keyring lost the renewed sign-in: %v", g)
	}
	if n := e.refreshes(); n != 2 {
		t.Errorf("%d refreshes, want the other process's and the refused one", n)
	}
}

// renewElsewhere plays another process that refreshes the sign-in with
// refreshToken and stores the result, and returns the new access token.
func (e *env) renewElsewhere(refreshToken string) string {
	g := e.grant()
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshToken}, "client_id": {g.ClientID}, "resource": {g.Resource}}
	if g.ClientSecret != "" {
		form.Set("client_secret", g.ClientSecret)
	}
	resp, err := http.PostForm(g.TokenURL, form)
	if err != nil {
		e.t.Errorf("the other process's refresh: %v", err)
		return ""
	}
	defer resp.Body.Close()
	var tok oauth2.Token
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || tok.AccessToken == "" {
		e.t.Errorf("the other process's refresh: %s %v", resp.Status, err)
		return ""
	}
	tok.Expiry = e.clock.Now().Add(time.Duration(tok.ExpiresIn) * time.Second)
	g.Token = &tok
	b, _ := json.Marshal(g)
	if err := e.ring.Set(context.Background(), signin.KeyName(plugin), string(b)); err != nil {
		e.t.Errorf("the other process's store: %v", err)
	}
	return tok.AccessToken
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestRefreshOncePerLifetimeP4 pins that a token living a minute is
// renewed about once a minute, not before every request.
func TestRefreshOncePerLifetimeP4(t *testing.T) {
	e := newEnv(t, setup{as: []fakeoauth.Option{fakeoauth.WithAccessTokenLifetime(time.Minute)}})
	e.signIn()
	c := e.mcpClient(e.viaManager())
	const span = 3 * time.Minute
	for elapsed := time.Duration(0); elapsed <= span; elapsed += 10 * time.Second {
		if who, err := e.whoami(c); err != nil || !strings.Contains(who, fakeoauth.Subject) {
			t.Fatalf("whoami at +%s = %q, %v", elapsed, who, err)
		}
		e.clock.Advance(10 * time.Second)
	}
	if n, most := e.refreshes(), int(span/time.Minute); n == 0 || n > most {
		t.Errorf("%d refreshes over %s of one-minute tokens, want 1 to %d", n, span, most)
	}
}
