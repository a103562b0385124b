// Package fakeoauth holds test doubles for OAuth sign-ins, real HTTP servers
// that any package's tests can use: an authorization server (RFC 8414
// metadata, RFC 7591 registration, authorization code with PKCE S256,
// refresh with rotation, RFC 8707 resources) that approves every sign-in
// without a browser, and a protected MCP server (RFC 9728) that accepts
// only its live access tokens.
package fakeoauth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Subject is the user every sign-in signs in as.
const Subject = "owner@example.test"

// CodeLifetime is how long an authorization code can be exchanged.
const CodeLifetime = time.Minute

// Option configures an AuthServer.
type Option func(*AuthServer)

// WithClock makes the server tell time by now (token and code expiry).
func WithClock(now func() time.Time) Option { return func(a *AuthServer) { a.now = now } }

// WithAccessTokenLifetime sets the access tokens' lifetime, default 1 h.
func WithAccessTokenLifetime(d time.Duration) Option { return func(a *AuthServer) { a.accessTTL = d } }

// WithRefreshTokenLifetime makes refresh tokens expire d after they are
// issued; by default they live until revoked.
func WithRefreshTokenLifetime(d time.Duration) Option {
	return func(a *AuthServer) { a.refreshTTL = d }
}

// WithoutReuseDetection makes a rotated refresh token refused without
// ending the sign-in it belongs to, as servers that rotate but do not
// detect reuse do. By default a reused refresh token ends the sign-in.
func WithoutReuseDetection() Option { return func(a *AuthServer) { a.noReuseDetection = true } }

// WithoutRegistration removes dynamic client registration: the metadata has
// no registration_endpoint and /register answers 404. Use AddClient.
func WithoutRegistration() Option { return func(a *AuthServer) { a.noRegistration = true } }

// OIDCDiscoveryOnly serves the metadata only at
// /.well-known/openid-configuration, not at the RFC 8414 path.
func OIDCDiscoveryOnly() Option { return func(a *AuthServer) { a.oidcOnly = true } }

// AuthServer is a fake OAuth 2.1 authorization server. Its URL is its issuer.
type AuthServer struct {
	URL    string
	t      testing.TB
	server *httptest.Server

	now                      func() time.Time
	accessTTL, refreshTTL    time.Duration
	noRegistration, oidcOnly bool
	noReuseDetection         bool

	mu        sync.Mutex
	clients   map[string]*client
	codes     map[string]*code
	access    map[string]*accessToken
	refresh   map[string]*refreshToken
	resources map[string]bool
	secrets   []string
	requests  []url.Values // token requests, in order
	regs      int
}

type client struct {
	id, secret   string
	redirectURIs []string
	anyLoopback  bool
}

type code struct {
	client, redirectURI, challenge, resource, scope string
	expires                                         time.Time
	used                                            bool
	grant                                           *grant
}

// grant ties together the tokens of one sign-in, so revoking it (or
// replaying its code) ends them all.
type grant struct{ revoked bool }

type accessToken struct {
	client, resource, scope string
	expires                 time.Time
	revoked                 bool
	grant                   *grant
}

type refreshToken struct {
	client, resource, scope string
	expires                 time.Time // zero: no expiry
	used                    bool      // rotated away
	grant                   *grant
}

// NewAuthServer starts a fake authorization server, closed when the test ends.
func NewAuthServer(t testing.TB, opts ...Option) *AuthServer {
	t.Helper()
	a := &AuthServer{
		t:         t,
		now:       time.Now,
		accessTTL: time.Hour,
		clients:   map[string]*client{},
		codes:     map[string]*code{},
		access:    map[string]*accessToken{},
		refresh:   map[string]*refreshToken{},
		resources: map[string]bool{},
	}
	for _, o := range opts {
		o(a)
	}
	mux := http.NewServeMux()
	if a.oidcOnly {
		mux.HandleFunc("GET /.well-known/openid-configuration", a.metadata)
	} else {
		mux.HandleFunc("GET /.well-known/oauth-authorization-server", a.metadata)
	}
	if !a.noRegistration {
		mux.HandleFunc("POST /register", a.register)
	}
	mux.HandleFunc("GET /authorize", a.authorize)
	mux.HandleFunc("POST /token", a.token)
	a.server = httptest.NewServer(mux)
	a.URL = a.server.URL
	t.Cleanup(a.server.Close)
	return a
}

// AddResource makes the server issue tokens for resource (an RFC 8707
// resource indicator, e.g. a protected MCP server's URL).
func (a *AuthServer) AddResource(resource string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.resources[resource] = true
}

// AddClient registers a public client by hand, as an owner would on a
// server without dynamic registration. It accepts any loopback redirect URI.
func (a *AuthServer) AddClient(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.clients[id] = &client{id: id, anyLoopback: true}
}

// AddConfidentialClient registers a client with a secret by hand, as an
// owner creates a "Desktop app" client at a provider without dynamic
// registration (Google). It accepts any loopback redirect URI.
func (a *AuthServer) AddConfidentialClient(id, secret string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.clients[id] = &client{id: id, secret: secret, anyLoopback: true}
	a.secrets = append(a.secrets, secret)
}

// RemoveClient forgets a registered client, as a server that expires
// unused registrations does: its requests are refused with invalid_client
// at the token endpoint and its authorization requests fail.
func (a *AuthServer) RemoveClient(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.clients[id] == nil {
		a.t.Errorf("fakeoauth: RemoveClient of a client the server does not know")
	}
	delete(a.clients, id)
}

// Registrations is the number of dynamic client registrations so far.
func (a *AuthServer) Registrations() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.regs
}

// TokenRequests returns the forms posted to /token, in order.
func (a *AuthServer) TokenRequests() []url.Values {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]url.Values, len(a.requests))
	for i, v := range a.requests {
		out[i] = url.Values(cloneValues(v))
	}
	return out
}

// Secrets returns every code, token and client secret the server issued,
// for tests that assert none of them leaks into logs, errors or pages.
func (a *AuthServer) Secrets() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.secrets)
}

// Revoke revokes a token. Revoking an access token ends only that token;
// revoking a refresh token ends the whole sign-in it belongs to, as an
// owner removing the app's access would.
func (a *AuthServer) Revoke(token string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if at := a.access[token]; at != nil {
		at.revoked = true
		return
	}
	if rt := a.refresh[token]; rt != nil {
		rt.grant.revoked = true
		return
	}
	a.t.Errorf("fakeoauth: Revoke of a token the server never issued")
}

// Introspect reports whether token is a live access token and, if so, for
// which resource and client it was issued.
func (a *AuthServer) Introspect(token string) (resource, clientID string, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	at := a.access[token]
	if at == nil || at.revoked || at.grant.revoked || !a.now().Before(at.expires) {
		return "", "", false
	}
	return at.resource, at.client, true
}

// Approve plays the owner's browser at authURL: it follows the authorize
// step, which the server approves at once, and returns the URL the browser
// would be sent back to, with code and state (or error and state).
func (a *AuthServer) Approve(authURL string) (redirectURL string) {
	a.t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(authURL)
	if err != nil {
		a.t.Fatalf("fakeoauth: authorize: %v", err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusFound || loc == "" {
		a.t.Fatalf("fakeoauth: authorize answered %s, not a redirect", resp.Status)
	}
	return loc
}

func (a *AuthServer) metadata(w http.ResponseWriter, r *http.Request) {
	md := map[string]any{
		"issuer":                                         a.URL,
		"authorization_endpoint":                         a.URL + "/authorize",
		"token_endpoint":                                 a.URL + "/token",
		"response_types_supported":                       []string{"code"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"none", "client_secret_post"},
		"authorization_response_iss_parameter_supported": true,
	}
	if !a.noRegistration {
		md["registration_endpoint"] = a.URL + "/register"
	}
	writeJSON(w, http.StatusOK, md)
}

func (a *AuthServer) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ClientName   string   `json:"client_name"`
		RedirectURIs []string `json:"redirect_uris"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
		GrantTypes   []string `json:"grant_types"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "the body is not JSON")
		return
	}
	if len(req.RedirectURIs) == 0 {
		oauthError(w, http.StatusBadRequest, "invalid_redirect_uri", "redirect_uris is required")
		return
	}
	for _, u := range req.RedirectURIs {
		if p, err := url.Parse(u); err != nil || p.Scheme == "" || p.Host == "" || p.Fragment != "" {
			oauthError(w, http.StatusBadRequest, "invalid_redirect_uri", "redirect URIs must be absolute")
			return
		}
	}
	c := &client{id: "client-" + random(), redirectURIs: req.RedirectURIs}
	method := req.AuthMethod
	if method == "" {
		method = "client_secret_basic"
	}
	resp := map[string]any{
		"client_id":                  c.id,
		"client_id_issued_at":        a.now().Unix(),
		"client_name":                req.ClientName,
		"redirect_uris":              req.RedirectURIs,
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"token_endpoint_auth_method": method,
	}
	a.mu.Lock()
	if method != "none" {
		c.secret = "secret-" + random()
		a.secrets = append(a.secrets, c.secret)
		resp["client_secret"] = c.secret
	}
	a.clients[c.id] = c
	a.regs++
	a.mu.Unlock()
	writeJSON(w, http.StatusCreated, resp)
}

func (a *AuthServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.mu.Lock()
	defer a.mu.Unlock()
	c := a.clients[q.Get("client_id")]
	if c == nil {
		http.Error(w, "unknown client_id", http.StatusBadRequest)
		return
	}
	redirect := q.Get("redirect_uri")
	if !c.allows(redirect) {
		http.Error(w, "redirect_uri is not registered for this client", http.StatusBadRequest)
		return
	}
	fail := func(code, desc string) {
		u, _ := url.Parse(redirect)
		v := u.Query()
		v.Set("error", code)
		v.Set("error_description", desc)
		v.Set("state", q.Get("state"))
		v.Set("iss", a.URL)
		u.RawQuery = v.Encode()
		http.Redirect(w, r, u.String(), http.StatusFound)
	}
	switch {
	case q.Get("response_type") != "code":
		fail("unsupported_response_type", "only code is supported")
		return
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		fail("invalid_request", "PKCE with S256 is required")
		return
	case !a.resources[q.Get("resource")]:
		fail("invalid_target", "unknown or missing resource")
		return
	}
	cd := &code{
		client:      c.id,
		redirectURI: redirect,
		challenge:   q.Get("code_challenge"),
		resource:    q.Get("resource"),
		scope:       q.Get("scope"),
		expires:     a.now().Add(CodeLifetime),
		grant:       &grant{},
	}
	value := "code-" + random()
	a.codes[value] = cd
	a.secrets = append(a.secrets, value)
	u, _ := url.Parse(redirect)
	v := u.Query()
	v.Set("code", value)
	v.Set("state", q.Get("state"))
	v.Set("iss", a.URL)
	u.RawQuery = v.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

// allows reports whether redirect is registered for c. A loopback
// redirect URI matches on any port (RFC 8252 §7.3); a client added by hand
// takes any loopback redirect URI.
func (c *client) allows(redirect string) bool {
	u, err := url.Parse(redirect)
	if err != nil || u.Fragment != "" {
		return false
	}
	isLoopback := u.Scheme == "http" && loopback(u.Hostname())
	if c.anyLoopback && isLoopback {
		return true
	}
	for _, reg := range c.redirectURIs {
		if reg == redirect {
			return true
		}
		r, err := url.Parse(reg)
		if err == nil && isLoopback && r.Scheme == "http" && r.Hostname() == u.Hostname() && r.Path == u.Path && r.RawQuery == u.RawQuery {
			return true
		}
	}
	return false
}

func loopback(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (a *AuthServer) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "the body is not a form")
		return
	}
	form := r.PostForm
	a.mu.Lock()
	defer a.mu.Unlock()
	a.requests = append(a.requests, cloneValues(form))

	c, ok := a.authenticate(r, form)
	if !ok {
		oauthError(w, http.StatusUnauthorized, "invalid_client", "client authentication failed")
		return
	}
	switch form.Get("grant_type") {
	case "authorization_code":
		a.exchange(w, c, form)
	case "refresh_token":
		a.renew(w, c, form)
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "use authorization_code or refresh_token")
	}
}

// authenticate finds the calling client: a public one by client_id, a
// confidential one by its secret in the form or in HTTP Basic.
func (a *AuthServer) authenticate(r *http.Request, form url.Values) (*client, bool) {
	id, secret := form.Get("client_id"), form.Get("client_secret")
	if u, p, ok := r.BasicAuth(); ok {
		id, _ = url.QueryUnescape(u)
		secret, _ = url.QueryUnescape(p)
	}
	c := a.clients[id]
	if c == nil {
		return nil, false
	}
	if c.secret != "" && subtle.ConstantTimeCompare([]byte(c.secret), []byte(secret)) != 1 {
		return nil, false
	}
	return c, true
}

func (a *AuthServer) exchange(w http.ResponseWriter, c *client, form url.Values) {
	cd := a.codes[form.Get("code")]
	switch {
	case cd == nil:
		oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown authorization code")
		return
	case cd.used:
		// RFC 6749 §4.1.2: a code used twice ends what it granted.
		cd.grant.revoked = true
		oauthError(w, http.StatusBadRequest, "invalid_grant", "the authorization code was already used")
		return
	}
	cd.used = true
	switch {
	case !a.now().Before(cd.expires):
		oauthError(w, http.StatusBadRequest, "invalid_grant", "the authorization code expired")
	case cd.client != c.id:
		oauthError(w, http.StatusBadRequest, "invalid_grant", "the code was issued to another client")
	case form.Get("redirect_uri") != cd.redirectURI:
		oauthError(w, http.StatusBadRequest, "invalid_grant", "redirect_uri does not match the authorization request")
	case challenge(form.Get("code_verifier")) != cd.challenge:
		oauthError(w, http.StatusBadRequest, "invalid_grant", "PKCE verification failed")
	case form.Get("resource") != cd.resource:
		oauthError(w, http.StatusBadRequest, "invalid_target", "resource does not match the authorization request")
	default:
		a.issue(w, c.id, cd.resource, cd.scope, cd.grant)
	}
}

func (a *AuthServer) renew(w http.ResponseWriter, c *client, form url.Values) {
	rt := a.refresh[form.Get("refresh_token")]
	switch {
	case rt == nil:
		oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown refresh token")
	case rt.grant.revoked:
		oauthError(w, http.StatusBadRequest, "invalid_grant", "the sign-in was revoked")
	case rt.used:
		// Reuse of a rotated refresh token: assume it was stolen.
		if !a.noReuseDetection {
			rt.grant.revoked = true
		}
		oauthError(w, http.StatusBadRequest, "invalid_grant", "the refresh token was already used")
	case !rt.expires.IsZero() && !a.now().Before(rt.expires):
		oauthError(w, http.StatusBadRequest, "invalid_grant", "the refresh token expired")
	case rt.client != c.id:
		oauthError(w, http.StatusBadRequest, "invalid_grant", "the refresh token was issued to another client")
	case form.Get("resource") != rt.resource:
		oauthError(w, http.StatusBadRequest, "invalid_target", "resource does not match the sign-in")
	default:
		rt.used = true
		a.issue(w, c.id, rt.resource, rt.scope, rt.grant)
	}
}

// issue answers with a new access and refresh token; a.mu is held.
func (a *AuthServer) issue(w http.ResponseWriter, clientID, resource, scope string, g *grant) {
	now := a.now()
	at, rt := "at-"+random(), "rt-"+random()
	a.access[at] = &accessToken{client: clientID, resource: resource, scope: scope, expires: now.Add(a.accessTTL), grant: g}
	r := &refreshToken{client: clientID, resource: resource, scope: scope, grant: g}
	if a.refreshTTL > 0 {
		r.expires = now.Add(a.refreshTTL)
	}
	a.refresh[rt] = r
	a.secrets = append(a.secrets, at, rt)
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token":  at,
		"token_type":    "Bearer",
		"expires_in":    int64(a.accessTTL / time.Second),
		"refresh_token": rt,
		"scope":         scope,
	})
}

func challenge(verifier string) string {
	if verifier == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func random() string { return strings.ToLower(rand.Text()) }

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v))
	for k, vs := range v {
		out[k] = slices.Clone(vs)
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

// String keeps a printed AuthServer short.
func (a *AuthServer) String() string { return fmt.Sprintf("fakeoauth.AuthServer(%s)", a.URL) }
