package signin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"golang.org/x/oauth2"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakeoauth"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
	"github.com/jarvisbot/jarvisbot/store/secrets"
)

const plugin = "github"

// clock is a test clock that moves only when told.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// syncBuffer collects log output from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// env is a fake authorization server, a protected MCP server, a file
// keyring and a Manager on a test clock. When the test ends it checks that
// no secret the server issued appears in the log, or in any error or page
// the test passed to record.
type env struct {
	t     *testing.T
	clock *clock
	as    *fakeoauth.AuthServer
	mcp   *fakeoauth.ProtectedMCP
	ring  *secrets.Keyring
	logs  *syncBuffer
	m     *signin.Manager

	mu   sync.Mutex
	seen []string // error texts and pages, checked for secrets at the end
}

type setup struct {
	as      []fakeoauth.Option
	mcp     []fakeoauth.MCPOption
	options func(*signin.Options)
}

func newEnv(t *testing.T, s setup) *env {
	t.Helper()
	e := &env{t: t, clock: &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}, logs: &syncBuffer{}}
	e.as = fakeoauth.NewAuthServer(t, append([]fakeoauth.Option{fakeoauth.WithClock(e.clock.Now)}, s.as...)...)
	e.mcp = fakeoauth.NewProtectedMCP(t, e.as, s.mcp...)
	ring, err := secrets.Open(secrets.Options{Backend: "file", Dir: t.TempDir(), Password: func() (string, error) { return "test", nil }})
	if err != nil {
		t.Fatal(err)
	}
	e.ring = ring
	opt := signin.Options{
		Keyring: ring,
		Now:     e.clock.Now,
		Logger:  slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if s.options != nil {
		s.options(&opt)
	}
	e.m = signin.NewManager(opt)
	t.Cleanup(func() {
		if err := e.m.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		e.checkNoSecrets()
	})
	return e
}

// record keeps a text (error, page) to check for secrets at the end.
func (e *env) record(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seen = append(e.seen, s)
}

func (e *env) checkNoSecrets() {
	e.t.Helper()
	secrets := e.as.Secrets()
	for _, req := range e.as.TokenRequests() {
		if v := req.Get("code_verifier"); v != "" {
			secrets = append(secrets, v)
		}
	}
	e.mu.Lock()
	texts := append([]string{e.logs.String()}, e.seen...)
	e.mu.Unlock()
	for _, s := range secrets {
		for i, text := range texts {
			if strings.Contains(text, s) {
				where := "an error or page"
				if i == 0 {
					where = "the log"
				}
				e.t.Errorf("a secret issued by the fake server (%.6s…) appears in %s:\n%s", s, where, text)
			}
		}
	}
}

// callback delivers the browser's return to redirectURL and returns the
// status and page.
func (e *env) callback(redirectURL string) (int, string) {
	e.t.Helper()
	resp, err := http.Get(redirectURL)
	if err != nil {
		e.t.Fatalf("callback: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	e.record(string(b))
	return resp.StatusCode, string(b)
}

// begin starts a sign-in and fails the test if that fails.
func (e *env) begin(scopes ...string) string {
	e.t.Helper()
	authURL, err := e.m.Begin(context.Background(), plugin, e.mcp.URL, scopes)
	if err != nil {
		e.t.Fatalf("Begin: %v", err)
	}
	return authURL
}

// wait returns the sign-in's outcome, failing the test if it takes long.
func (e *env) wait() error {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := e.m.Wait(ctx, plugin)
	if errors.Is(err, context.DeadlineExceeded) {
		e.t.Fatal("Wait did not return")
	}
	if err != nil {
		e.record(err.Error())
	}
	return err
}

// signIn runs a whole sign-in: Begin, the owner approves, the callback,
// Wait. It returns the authorization URL and the redirect URL.
func (e *env) signIn(scopes ...string) (authURL, redirectURL string) {
	e.t.Helper()
	authURL = e.begin(scopes...)
	redirectURL = e.as.Approve(authURL)
	if st, body := e.callback(redirectURL); st != http.StatusOK || !strings.Contains(body, "Signed in to github, you can close this tab") {
		e.t.Fatalf("callback: %d %s", st, body)
	}
	if err := e.wait(); err != nil {
		e.t.Fatalf("Wait: %v", err)
	}
	return authURL, redirectURL
}

// token calls Token and records its error.
func (e *env) token() (string, error) {
	tok, err := e.m.Token(context.Background(), plugin)
	if err != nil {
		e.record(err.Error())
	}
	return tok, err
}

func (e *env) mustToken() string {
	e.t.Helper()
	tok, err := e.token()
	if err != nil {
		e.t.Fatalf("Token: %v", err)
	}
	return tok
}

// grant reads the plugin's stored sign-in.
func (e *env) grant() signin.Grant {
	e.t.Helper()
	return e.grantOf(plugin)
}

// mustTokenOf returns a valid access token of the sign-in kept as name.
func (e *env) mustTokenOf(name string) string {
	e.t.Helper()
	tok, err := e.m.Token(context.Background(), name)
	if err != nil {
		e.t.Fatalf("Token: %v", err)
	}
	return tok
}

// grantOf reads the sign-in kept as name.
func (e *env) grantOf(name string) signin.Grant {
	e.t.Helper()
	s, err := e.ring.Get(context.Background(), signin.KeyName(name))
	if err != nil {
		e.t.Fatalf("keyring: %v", err)
	}
	var g signin.Grant
	if err := json.Unmarshal([]byte(s), &g); err != nil {
		e.t.Fatal(err)
	}
	return g
}

// mcpClient connects mcp-go's client to the protected server through hc.
func (e *env) mcpClient(opts ...transport.StreamableHTTPCOption) *client.Client {
	e.t.Helper()
	c, err := client.NewStreamableHttpClient(e.mcp.URL, opts...)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.Close() })
	if err := c.Start(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	return c
}

// whoami initializes c if needed and calls the whoami tool.
func (e *env) whoami(c *client.Client) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if !c.IsInitialized() {
		req := mcp.InitializeRequest{}
		req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
		req.Params.ClientInfo = mcp.Implementation{Name: "jarvisbot-test", Version: "0"}
		if _, err := c.Initialize(ctx, req); err != nil {
			e.record(err.Error())
			return "", err
		}
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "whoami"
	res, err := c.CallTool(ctx, req)
	if err != nil {
		e.record(err.Error())
		return "", err
	}
	if len(res.Content) == 0 {
		return "", errors.New("whoami returned nothing")
	}
	text, _ := res.Content[0].(mcp.TextContent)
	return text.Text, nil
}

// viaManager is an mcp-go client option sending the Manager's token for
// the plugin, the way the MCP host connects a plugin.
func (e *env) viaManager() transport.StreamableHTTPCOption {
	return transport.WithHTTPBasicClient(&http.Client{Transport: e.m.Transport(plugin, nil)})
}

func query(t *testing.T, raw string) url.Values {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}

func withQuery(t *testing.T, raw, key, value string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}

// needsAttention checks that err is the needs-attention error.
func needsAttention(t *testing.T, err error, mentions string) {
	t.Helper()
	if !errors.Is(err, signin.ErrNeedsAttention) || jarvisbot.ErrorCode(err) != jarvisbot.EUNAVAILABLE {
		t.Fatalf("want ErrNeedsAttention with code unavailable, got %v (%s)", err, jarvisbot.ErrorCode(err))
	}
	if !strings.Contains(err.Error(), plugin) || !strings.Contains(err.Error(), mentions) {
		t.Errorf("the error should name the plugin and say %q: %v", mentions, err)
	}
}

// TestFullSignInP3 pins the whole flow against the fakes: discovery from the
// 401, dynamic registration, PKCE S256, state, resource, the callback, the
// keyring, and the token working for the protected MCP server.
func TestFullSignInP3(t *testing.T) {
	e := newEnv(t, setup{})
	authURL, redirectURL := e.signIn("repo", "read:user")

	q := query(t, authURL)
	redirectURI := q.Get("redirect_uri")
	if !strings.HasPrefix(redirectURI, "http://127.0.0.1:") || !strings.HasSuffix(redirectURI, "/oauth/callback") {
		t.Errorf("redirect_uri %q is not the loopback listener's", redirectURI)
	}
	for k, want := range map[string]string{
		"response_type":         "code",
		"code_challenge_method": "S256",
		"resource":              e.mcp.URL,
		"scope":                 "repo read:user",
	} {
		if got := q.Get(k); got != want {
			t.Errorf("authorization URL %s = %q, want %q", k, got, want)
		}
	}
	if len(q.Get("state")) < 20 || len(q.Get("code_challenge")) != 43 || q.Get("client_id") == "" {
		t.Errorf("authorization URL lacks a state, challenge or client id: %v", q)
	}
	if n := e.as.Registrations(); n != 1 {
		t.Errorf("%d dynamic registrations, want 1", n)
	}

	reqs := e.as.TokenRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d token requests, want 1", len(reqs))
	}
	ex := reqs[0]
	if ex.Get("grant_type") != "authorization_code" || ex.Get("redirect_uri") != redirectURI ||
		ex.Get("resource") != e.mcp.URL || ex.Get("client_id") != q.Get("client_id") ||
		oauth2.S256ChallengeFromVerifier(ex.Get("code_verifier")) != q.Get("code_challenge") {
		t.Errorf("the code exchange does not match the authorization request: %v", ex)
	}

	tok := e.mustToken()
	g := e.grant()
	if g.ClientID != q.Get("client_id") || g.Issuer != e.as.URL || g.Resource != e.mcp.URL ||
		g.TokenURL != e.as.URL+"/token" || g.Token == nil || g.Token.AccessToken != tok || g.Token.RefreshToken == "" ||
		!g.Token.Expiry.Equal(e.clock.Now().Add(time.Hour)) {
		t.Errorf("stored grant: %+v", g)
	}

	c := e.mcpClient(transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + tok}))
	who, err := e.whoami(c)
	if err != nil || !strings.Contains(who, fakeoauth.Subject) {
		t.Fatalf("whoami = %q, %v", who, err)
	}

	// The state is single use: the same return again is refused.
	if st, body := e.callback(redirectURL); st != http.StatusBadRequest || !strings.Contains(body, "not valid or was already used") {
		t.Errorf("replayed callback: %d %s", st, body)
	}
	if len(e.as.TokenRequests()) != 1 {
		t.Error("a replayed callback reached the token endpoint")
	}
}

// TestGrantRedacted pins that no way of printing or logging a Grant shows
// its secrets.
func TestGrantRedacted(t *testing.T) {
	g := signin.Grant{
		ClientID: "client-1", ClientSecret: "s3cret-client", Issuer: "https://as.example", Resource: "https://mcp.example/mcp",
		Token: &oauth2.Token{AccessToken: "s3cret-access", RefreshToken: "s3cret-refresh", Expiry: time.Unix(1e9, 0)},
	}
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	log.Info("x", "grant", g, "ptr", &g)
	slog.New(slog.NewTextHandler(&buf, nil)).Info("x", "grant", g)
	out := fmt.Sprintf("%v %+v %#v %s %d %x %q", g, g, g, &g, g, g, g) + g.String() + g.GoString() + buf.String()
	for _, s := range []string{"s3cret"} {
		if strings.Contains(out, s) {
			t.Fatalf("a secret shows:\n%s", out)
		}
	}
	if !strings.Contains(out, "client-1") || !strings.Contains(out, "https://as.example") {
		t.Errorf("the redacted form should still say which sign-in it is:\n%s", out)
	}
}

// TestRefreshBeforeExpiryP4 pins that Token renews the access token within
// a minute of its expiry, rotates the refresh token, sends the resource,
// and shares one refresh among concurrent callers.
func TestRefreshBeforeExpiryP4(t *testing.T) {
	e := newEnv(t, setup{as: []fakeoauth.Option{fakeoauth.WithAccessTokenLifetime(5 * time.Minute)}})
	e.signIn()
	t1 := e.mustToken()
	rt1 := e.grant().Token.RefreshToken

	e.clock.Advance(3 * time.Minute)
	if tok := e.mustToken(); tok != t1 || len(e.as.TokenRequests()) != 1 {
		t.Fatal("a token with two minutes left was refreshed")
	}

	e.clock.Advance(90 * time.Second) // 30 s left
	t2 := e.mustToken()
	if t2 == t1 {
		t.Fatal("a token with 30 s left was not refreshed")
	}
	reqs := e.as.TokenRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d token requests, want 2", len(reqs))
	}
	if r := reqs[1]; r.Get("grant_type") != "refresh_token" || r.Get("refresh_token") != rt1 || r.Get("resource") != e.mcp.URL {
		t.Errorf("refresh request: %v", r)
	}
	g := e.grant()
	if g.Token.AccessToken != t2 || g.Token.RefreshToken == rt1 || !g.Token.Expiry.Equal(e.clock.Now().Add(5*time.Minute)) {
		t.Errorf("the renewed token was not stored with its rotated refresh token: %v", g)
	}
	c := e.mcpClient(e.viaManager())
	if who, err := e.whoami(c); err != nil || !strings.Contains(who, fakeoauth.Subject) {
		t.Fatalf("whoami with the renewed token = %q, %v", who, err)
	}

	// Concurrent callers at expiry share one refresh: the rotated refresh
	// token must not be sent twice.
	e.clock.Advance(5 * time.Minute)
	var wg sync.WaitGroup
	toks := make([]string, 8)
	for i := range toks {
		wg.Go(func() { toks[i], _ = e.token() })
	}
	wg.Wait()
	for _, tok := range toks {
		if tok == "" || tok != toks[0] || tok == t2 {
			t.Fatalf("concurrent Token calls got %q", toks)
		}
	}
	if n := len(e.as.TokenRequests()); n != 3 {
		t.Errorf("%d token requests after the concurrent refresh, want 3", n)
	}
}

// TestExpiryNeedsAttentionThenRenewalP4 pins that a refresh the server
// refuses puts the plugin in need of attention, and that a new sign-in
// brings the same MCP connection back without a restart.
func TestExpiryNeedsAttentionThenRenewalP4(t *testing.T) {
	e := newEnv(t, setup{as: []fakeoauth.Option{
		fakeoauth.WithAccessTokenLifetime(5 * time.Minute),
		fakeoauth.WithRefreshTokenLifetime(30 * time.Minute),
	}})
	e.signIn()
	c := e.mcpClient(e.viaManager())
	if _, err := e.whoami(c); err != nil {
		t.Fatalf("whoami: %v", err)
	}
	clientID := e.grant().ClientID

	e.clock.Advance(31 * time.Minute)
	_, err := e.token()
	needsAttention(t, err, "invalid_grant")
	if g := e.grant(); g.Token != nil || g.ClientID != clientID {
		t.Errorf("after the refused refresh the keyring should keep the registration and no token: %v", g)
	}
	n := len(e.as.TokenRequests())
	_, err = e.token()
	needsAttention(t, err, "sign-in ended")
	if len(e.as.TokenRequests()) != n {
		t.Error("Token kept asking the server after the sign-in ended")
	}
	if _, err := e.whoami(c); !errors.Is(err, signin.ErrNeedsAttention) {
		t.Errorf("a tool call without a sign-in: %v, want ErrNeedsAttention", err)
	}

	// Renewal: a new sign-in reuses the registration, and the same client
	// works again.
	e.signIn()
	if e.as.Registrations() != 1 || e.grant().ClientID != clientID {
		t.Errorf("renewal registered again (%d registrations) instead of reusing the client", e.as.Registrations())
	}
	if who, err := e.whoami(c); err != nil || !strings.Contains(who, fakeoauth.Subject) {
		t.Fatalf("whoami after renewal = %q, %v", who, err)
	}
}

// TestRevokedTokenP4 pins what a 401 from the MCP server does: a revoked
// access token is replaced by one refresh; a revoked sign-in needs
// attention.
func TestRevokedTokenP4(t *testing.T) {
	e := newEnv(t, setup{})
	e.signIn()
	c := e.mcpClient(e.viaManager())
	if _, err := e.whoami(c); err != nil {
		t.Fatalf("whoami: %v", err)
	}

	// Only the access token is revoked: the 401 invalidates it, the next
	// request refreshes once and works.
	e.as.Revoke(e.mustToken())
	if _, err := e.whoami(c); err == nil {
		t.Fatal("a revoked access token was accepted")
	}
	if who, err := e.whoami(c); err != nil || !strings.Contains(who, fakeoauth.Subject) {
		t.Fatalf("whoami after the refresh = %q, %v", who, err)
	}
	if n := len(e.as.TokenRequests()); n != 2 {
		t.Errorf("%d token requests, want the exchange and one refresh", n)
	}

	// The whole sign-in is revoked: the refresh is refused too.
	e.as.Revoke(e.grant().Token.RefreshToken)
	before := e.mcp.Unauthorized()
	if _, err := e.whoami(c); err == nil {
		t.Fatal("a token of a revoked sign-in was accepted")
	}
	if e.mcp.Unauthorized() != before+1 {
		t.Error("the server did not answer 401")
	}
	_, err := e.token()
	needsAttention(t, err, "revoked")

	// Invalidate by hand, as a host that sees the 401 itself would.
	e.signIn()
	e.as.Revoke(e.grant().Token.RefreshToken)
	e.m.Invalidate(plugin)
	_, err = e.token()
	needsAttention(t, err, "invalid_grant")
}

// TestCallbackWrongStateP3 pins that a return with a wrong, missing or
// unknown state gets a plain 400 page and does not complete the sign-in.
func TestCallbackWrongStateP3(t *testing.T) {
	e := newEnv(t, setup{})
	redirectURL := e.as.Approve(e.begin())

	for name, u := range map[string]string{
		"wrong state":   withQuery(t, redirectURL, "state", "not-the-state"),
		"missing state": withQuery(t, redirectURL, "state", ""),
	} {
		st, body := e.callback(u)
		if st != http.StatusBadRequest || !strings.Contains(body, "not valid or was already used") {
			t.Errorf("%s: %d %s", name, st, body)
		}
	}
	resp, err := http.Post(redirectURL, "text/plain", nil)
	if err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST to the callback: %v %v", resp.Status, err)
	}
	resp.Body.Close()

	if len(e.as.TokenRequests()) != 0 {
		t.Fatal("a wrong state reached the token endpoint")
	}
	// The real return still completes it, and it alone: a wrong return
	// that had ended the sign-in, at once or later, would have used its
	// state (this one is then refused), failed it, or spent the code in a
	// second token request.
	if st, _ := e.callback(redirectURL); st != http.StatusOK {
		t.Fatalf("the right state: %d (a wrong state ended the sign-in)", st)
	}
	if err := e.wait(); err != nil {
		t.Fatalf("a wrong state ended the sign-in: %v", err)
	}
	if n := len(e.as.TokenRequests()); n != 1 {
		t.Errorf("%d token requests, want the right return's one: a wrong state reached the token endpoint", n)
	}
}

// TestReplayedCodeP3 pins that a code used once is refused the second
// time, and the sign-in carrying it reports so.
func TestReplayedCodeP3(t *testing.T) {
	e := newEnv(t, setup{})
	_, first := e.signIn()
	before := e.grant()

	// A second sign-in whose return carries the first one's code.
	state := query(t, e.begin()).Get("state")
	st, body := e.callback(withQuery(t, first, "state", state))
	if st != http.StatusBadRequest || !strings.Contains(body, "already used") {
		t.Errorf("replayed code: %d %s", st, body)
	}
	err := e.wait()
	if err == nil || !strings.Contains(err.Error(), "invalid_grant") || !strings.Contains(err.Error(), plugin) {
		t.Fatalf("Wait = %v, want the refused exchange", err)
	}
	if after := e.grant(); after.Token.AccessToken != before.Token.AccessToken {
		t.Error("a failed sign-in replaced the stored one")
	}
}

// TestMismatchedRedirectP3 pins that a code obtained for another redirect
// URI is refused at the exchange, which sends the one the flow began with.
func TestMismatchedRedirectP3(t *testing.T) {
	e := newEnv(t, setup{})
	authURL := e.begin()
	real, _ := url.Parse(query(t, authURL).Get("redirect_uri"))
	other := *real
	other.Host = "127.0.0.1:1" // another loopback port: allowed by RFC 8252
	redirect, _ := url.Parse(e.as.Approve(withQuery(t, authURL, "redirect_uri", other.String())))
	if redirect.Host != other.Host {
		t.Fatalf("the fake sent the code to %s", redirect.Host)
	}
	redirect.Host = real.Host // an attacker hands the code to jarvisbot

	st, body := e.callback(redirect.String())
	if st != http.StatusBadRequest || !strings.Contains(body, "redirect_uri") {
		t.Errorf("mismatched redirect: %d %s", st, body)
	}
	if r := e.as.TokenRequests(); len(r) != 1 || r[0].Get("redirect_uri") != real.String() {
		t.Errorf("the exchange should send the flow's own redirect URI: %v", r)
	}
	if err := e.wait(); err == nil || !strings.Contains(err.Error(), "invalid_grant") {
		t.Fatalf("Wait = %v", err)
	}
	if _, err := e.ring.Get(context.Background(), signin.KeyName(plugin)); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("a failed sign-in left something in the keyring: %v", err)
	}
}

// TestStateExpiryP3 pins that a sign-in completed after StateTTL is refused,
// by the clock at the callback and by a timer for a Wait with no callback.
func TestStateExpiryP3(t *testing.T) {
	e := newEnv(t, setup{})
	redirectURL := e.as.Approve(e.begin())
	e.clock.Advance(signin.DefaultStateTTL + time.Second)
	st, body := e.callback(redirectURL)
	if st != http.StatusBadRequest || !strings.Contains(body, "expired") {
		t.Errorf("expired state: %d %s", st, body)
	}
	if err := e.wait(); err == nil || jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("Wait = %v", err)
	}
	if len(e.as.TokenRequests()) != 0 {
		t.Error("an expired state reached the token endpoint")
	}

	short := newEnv(t, setup{options: func(o *signin.Options) { o.StateTTL = 50 * time.Millisecond; o.Now = nil }})
	authURL, err := short.m.Begin(context.Background(), plugin, short.mcp.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := short.wait(); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("Wait past the TTL = %v", err)
	}
	if st, _ := short.callback(short.as.Approve(authURL)); st != http.StatusBadRequest {
		t.Errorf("a callback after the timer: %d", st)
	}
}

// TestDiscoveryVariantsP3 pins the other ways to find and use the
// authorization server.
func TestDiscoveryVariantsP3(t *testing.T) {
	for _, tc := range []struct {
		name   string
		setup  setup
		client string
	}{
		{"well-known path without a hint in the 401", setup{mcp: []fakeoauth.MCPOption{fakeoauth.WithoutMetadataHint()}}, ""},
		{"OpenID Connect discovery", setup{as: []fakeoauth.Option{fakeoauth.OIDCDiscoveryOnly()}}, ""},
		{"preset client without registration", setup{as: []fakeoauth.Option{fakeoauth.WithoutRegistration()}}, "preset-client"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.setup)
			var authURL string
			var err error
			if tc.client != "" {
				e.as.AddClient(tc.client)
				authURL, err = e.m.BeginWithClient(context.Background(), plugin, e.mcp.URL, tc.client, nil)
			} else {
				authURL, err = e.m.Begin(context.Background(), plugin, e.mcp.URL, nil)
			}
			if err != nil {
				t.Fatalf("Begin: %v", err)
			}
			if tc.client != "" && query(t, authURL).Get("client_id") != tc.client {
				t.Errorf("the preset client was not used: %s", authURL)
			}
			if st, body := e.callback(e.as.Approve(authURL)); st != http.StatusOK {
				t.Fatalf("callback: %d %s", st, body)
			}
			if err := e.wait(); err != nil {
				t.Fatal(err)
			}
			if who, err := e.whoami(e.mcpClient(e.viaManager())); err != nil || !strings.Contains(who, fakeoauth.Subject) {
				t.Fatalf("whoami = %q, %v", who, err)
			}
		})
	}

	t.Run("refusals", func(t *testing.T) {
		e := newEnv(t, setup{as: []fakeoauth.Option{fakeoauth.WithoutRegistration()}})
		for _, tc := range []struct{ plugin, url, says string }{
			{plugin, e.mcp.URL, "no dynamic client registration"},
			{plugin, "http://mcp.example.com/mcp", "https"},
			{plugin, "not a url", "not an MCP server URL"},
			{"no spaces", e.mcp.URL, "cannot name a sign-in"},
		} {
			_, err := e.m.Begin(context.Background(), tc.plugin, tc.url, nil)
			if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("Begin(%q, %q) = %v, want EINVALID saying %q", tc.plugin, tc.url, err, tc.says)
			}
		}
	})
}

// TestPublicBaseURLP3 pins that with a public base URL the redirect lands
// on the service's own server, which mounts Handler.
func TestPublicBaseURLP3(t *testing.T) {
	mux := http.NewServeMux()
	site := httptest.NewServer(mux)
	defer site.Close()
	e := newEnv(t, setup{options: func(o *signin.Options) { o.PublicBaseURL = site.URL + "/jarvis/"; o.ListenAddr = "" }})
	mux.Handle("/jarvis/oauth/callback", e.m.Handler())

	authURL := e.begin()
	if got := query(t, authURL).Get("redirect_uri"); got != site.URL+"/jarvis/oauth/callback" {
		t.Fatalf("redirect_uri = %q", got)
	}
	if st, body := e.callback(e.as.Approve(authURL)); st != http.StatusOK {
		t.Fatalf("callback: %d %s", st, body)
	}
	if err := e.wait(); err != nil {
		t.Fatal(err)
	}
	e.mustToken()
}

// TestForgetAndNoSignInP4 pins Token without a sign-in and Forget.
func TestForgetAndNoSignInP4(t *testing.T) {
	e := newEnv(t, setup{})
	_, err := e.token()
	needsAttention(t, err, "not signed in")
	if err := e.m.Wait(context.Background(), plugin); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("Wait with no sign-in started = %v", err)
	}

	e.signIn()
	e.mustToken()
	if err := e.m.Forget(context.Background(), plugin); err != nil {
		t.Fatal(err)
	}
	_, err = e.token()
	needsAttention(t, err, "not signed in")
	if err := e.m.Forget(context.Background(), plugin); err != nil {
		t.Errorf("forgetting twice: %v", err)
	}
}

// TestCloseStopsListener pins that Close ends waiting sign-ins and the
// callback listener.
func TestCloseStopsListener(t *testing.T) {
	e := newEnv(t, setup{})
	redirectURI := query(t, e.begin()).Get("redirect_uri")
	if err := e.m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.wait(); jarvisbot.ErrorCode(err) != jarvisbot.EUNAVAILABLE {
		t.Errorf("Wait after Close = %v", err)
	}
	u, _ := url.Parse(redirectURI)
	if conn, err := net.DialTimeout("tcp", u.Host, time.Second); err == nil {
		conn.Close()
		t.Error("the callback listener still accepts connections after Close")
	}
	if _, err := e.m.Begin(context.Background(), plugin, e.mcp.URL, nil); err == nil {
		t.Error("Begin after Close succeeded")
	}
	if _, err := e.token(); err != nil && !errors.Is(err, signin.ErrNeedsAttention) {
		t.Errorf("Token after Close: %v", err)
	}
}
