package signin

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"golang.org/x/oauth2"

	"github.com/jarvisbot/jarvisbot"
)

// flow is one sign-in waiting for, or finished with, its callback. The
// state and verifier live only here, in memory, for at most StateTTL.
type flow struct {
	plugin   string
	state    string
	verifier string
	grant    Grant // registration and endpoints; no token yet
	expires  time.Time
	timer    *time.Timer // ends the flow after StateTTL of real time
	done     chan struct{}
	err      error // set before done closes
}

// finish ends the flow once; the caller holds m.mu or owns f alone.
func (f *flow) finish(err error) {
	select {
	case <-f.done:
		return
	default:
	}
	if f.timer != nil {
		f.timer.Stop()
	}
	f.err = err
	close(f.done)
}

// Begin starts a sign-in to the plugin's MCP server at mcpURL and returns
// the authorization URL for the owner to open. It discovers the
// authorization server (RFC 9728 from a 401's WWW-Authenticate
// resource_metadata, else the well-known path; then RFC 8414 or OpenID
// Connect discovery), reuses the plugin's client registered with that
// server — a loopback redirect URI may change its port (RFC 8252 §7.3) —
// unless the server no longer accepts it, else registers jarvisbot
// dynamically (RFC 7591), and starts the callback listener if needed. A
// Begin for a plugin whose sign-in is still pending replaces it. The plugin's current
// tokens stay in use until the new sign-in succeeds.
func (m *Manager) Begin(ctx context.Context, plugin, mcpURL string, scopes []string) (string, error) {
	return m.begin(ctx, plugin, mcpURL, "", scopes)
}

// BeginWithClient is Begin for an authorization server that offers no
// dynamic registration: clientID is a public client registered with it by
// hand. A server that does offer registration still gets clientID.
func (m *Manager) BeginWithClient(ctx context.Context, plugin, mcpURL, clientID string, scopes []string) (string, error) {
	if clientID == "" {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "a sign-in to %s with a preset client needs its client id", plugin)
	}
	return m.begin(ctx, plugin, mcpURL, clientID, scopes)
}

func (m *Manager) begin(ctx context.Context, plugin, mcpURL, clientID string, scopes []string) (string, error) {
	if err := validPlugin(plugin); err != nil {
		return "", err
	}
	resource, err := canonicalResource(mcpURL)
	if err != nil {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "cannot sign in to %s: %w", plugin, err)
	}
	var old *Grant
	switch g, err := m.read(ctx, plugin); {
	case err == nil:
		old = &g
	case jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND:
		return "", err // a locked keyring could not take the result either
	}
	redirectURI, err := m.redirectURI(old)
	if err != nil {
		return "", err
	}

	h := transport.NewOAuthHandler(transport.OAuthConfig{
		ClientID:    clientID,
		RedirectURI: redirectURI,
		Scopes:      scopes,
		PKCEEnabled: true,
		HTTPClient:  m.hc,
	})
	h.SetBaseURL(resource)
	m.probe(ctx, h, resource)
	md, err := h.GetServerMetadata(ctx)
	if err != nil {
		return "", jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot find how to sign in to %s at %s: %v; check the plugin's MCP URL and that the server is up", plugin, mcpURL, err)
	}
	if err := checkMetadata(md); err != nil {
		return "", jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot sign in to %s: its authorization server %s %v", plugin, md.Issuer, err)
	}

	g := Grant{
		ClientID:    clientID,
		RedirectURI: redirectURI,
		AuthURL:     md.AuthorizationEndpoint,
		TokenURL:    md.TokenEndpoint,
		Resource:    resource,
		Issuer:      md.Issuer,
		Scopes:      slices.Clone(scopes),
	}
	if clientID != "" {
		g.AuthMethod = "none"
	} else {
		r, err := m.client(ctx, h, md, plugin, redirectURI, old)
		if err != nil {
			return "", err
		}
		g.ClientID, g.ClientSecret, g.AuthMethod = r.ClientID, r.ClientSecret, r.AuthMethod
	}

	f := m.newFlow(plugin, g)
	authURL := oauthConfig(g).AuthCodeURL(f.state,
		oauth2.S256ChallengeOption(f.verifier),
		oauth2.SetAuthURLParam("resource", resource))
	return m.pend(f, authURL)
}

// newFlow is a sign-in of plugin for grant g: a fresh state and PKCE
// verifier, expiring after the state TTL.
func (m *Manager) newFlow(plugin string, g Grant) *flow {
	return &flow{
		plugin:   plugin,
		state:    rand.Text(),
		verifier: oauth2.GenerateVerifier(),
		grant:    g,
		expires:  m.now().Add(m.opt.StateTTL),
		done:     make(chan struct{}),
	}
}

// pend keeps f waiting for its callback, replacing the plugin's sign-in
// still pending, and returns authURL.
func (m *Manager) pend(f *flow, authURL string) (string, error) {
	plugin, g := f.plugin, f.grant
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return "", errClosed()
	}
	if prev := m.latest[plugin]; prev != nil {
		if _, waiting := m.pending[prev.state]; waiting {
			delete(m.pending, prev.state)
			prev.finish(jarvisbot.Errorf(jarvisbot.ECONFLICT, "the sign-in to %s was replaced by a newer one: use the newest link", plugin))
		}
	}
	m.pending[f.state] = f
	m.latest[plugin] = f
	f.timer = time.AfterFunc(m.opt.StateTTL, func() { m.expire(f) })
	m.log.Info("signin: sign-in started", "plugin", plugin, "issuer", g.Issuer, "auth_url", g.AuthURL, "resource", g.Resource, "expires_in", m.opt.StateTTL)
	return authURL, nil
}

// probe asks the MCP server for a 401, whose WWW-Authenticate header may
// name its protected resource metadata (RFC 9728 §5.1). The handler keeps
// the URL only if it shares the server's origin. Any failure just leaves
// discovery to the well-known path.
func (m *Manager) probe(ctx context.Context, h *transport.OAuthHandler, resource string) {
	body := strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"ping"}`)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, resource, body)
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := m.hc.Do(req)
	if err != nil {
		m.log.Debug("signin: the MCP server did not answer the probe", "resource", resource, "err", err)
		return
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized {
		h.HandleUnauthorizedResponse(resp)
	}
}

// checkMetadata refuses an authorization server jarvisbot cannot sign in
// to safely: endpoints in the clear off the machine, or no PKCE S256.
func checkMetadata(md *transport.AuthServerMetadata) error {
	for _, e := range []struct{ name, url string }{
		{"authorization endpoint", md.AuthorizationEndpoint},
		{"token endpoint", md.TokenEndpoint},
		{"registration endpoint", md.RegistrationEndpoint},
	} {
		if e.url == "" && e.name == "registration endpoint" {
			continue
		}
		if err := secureURL(e.url); err != nil {
			return fmt.Errorf("names an unusable %s: %w", e.name, err)
		}
	}
	if len(md.CodeChallengeMethodsSupported) > 0 && !slices.Contains(md.CodeChallengeMethodsSupported, "S256") {
		return errors.New("does not support PKCE with S256, which jarvisbot requires")
	}
	return nil
}

// canonicalResource is the MCP server's canonical URI (MCP authorization,
// RFC 8707): lower-case scheme and host, no fragment, no trailing slash.
func canonicalResource(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("%.80q is not an MCP server URL like https://mcp.example.com/mcp", raw)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	u.Fragment, u.RawFragment = "", ""
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = strings.TrimSuffix(u.RawPath, "/")
	if err := secureURL(u.String()); err != nil {
		return "", err
	}
	return u.String(), nil
}

// secureURL accepts https URLs, and http ones only on a loopback host.
func secureURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%.80q is not an absolute URL", raw)
	}
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return nil
	}
	return fmt.Errorf("%s must use https", u.Redacted())
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// oauthConfig is the x/oauth2 view of a grant.
func oauthConfig(g Grant) *oauth2.Config {
	style := oauth2.AuthStyleAutoDetect
	switch {
	case g.ClientSecret == "", g.AuthMethod == "none", g.AuthMethod == "client_secret_post":
		style = oauth2.AuthStyleInParams
	case g.AuthMethod == "client_secret_basic":
		style = oauth2.AuthStyleInHeader
	}
	return &oauth2.Config{
		ClientID:     g.ClientID,
		ClientSecret: g.ClientSecret,
		Endpoint:     oauth2.Endpoint{AuthURL: g.AuthURL, TokenURL: g.TokenURL, AuthStyle: style},
		RedirectURL:  g.RedirectURI,
		Scopes:       g.Scopes,
	}
}

// expire ends a flow whose time ran out before its callback came.
func (m *Manager) expire(f *flow) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pending[f.state] != f {
		return
	}
	delete(m.pending, f.state)
	f.finish(expiredError(f.plugin, m.opt.StateTTL))
	m.log.Info("signin: sign-in expired before the owner completed it", "plugin", f.plugin)
}

func expiredError(plugin string, ttl time.Duration) error {
	return jarvisbot.Errorf(jarvisbot.EINVALID, "the sign-in to %s expired: it was not completed within %s; start it again", plugin, ttl)
}

func errClosed() error {
	return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "sign-ins are not available: jarvisbot is shutting down")
}

// Wait blocks until the plugin's latest sign-in completed (its tokens are
// in the keyring) or failed, or ctx ends. It returns at once for a sign-in
// that already ended, and ENOTFOUND when none was started.
func (m *Manager) Wait(ctx context.Context, plugin string) error {
	m.mu.Lock()
	f := m.latest[plugin]
	m.mu.Unlock()
	if f == nil {
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no sign-in to %s was started: start one first", plugin)
	}
	select {
	case <-f.done:
		return f.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// redirectURI returns the callback URL, starting the loopback listener
// when one is configured and not yet running. A listener on any port
// takes the port of the plugin's last sign-in when it is free, so that
// the redirect URI its client was registered with is used again.
func (m *Manager) redirectURI(old *Grant) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return "", errClosed()
	}
	if m.ln == nil && m.opt.ListenAddr != "" {
		if err := m.listen(preferredPort(m.opt.ListenAddr, old)); err != nil {
			return "", err
		}
	}
	if m.opt.PublicBaseURL != "" {
		base := strings.TrimSuffix(m.opt.PublicBaseURL, "/")
		if err := secureURL(base); err != nil {
			return "", jarvisbot.Errorf(jarvisbot.EINVALID, "the public base URL for sign-ins is unusable: %w", err)
		}
		return base + CallbackPath, nil
	}
	return m.loopback, nil
}

// preferredPort is the address to try before addr: addr's host with the
// loopback port of the old sign-in's redirect URI, when addr asks for any
// port; "" for none.
func preferredPort(addr string, old *Grant) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port != "0" || old == nil {
		return ""
	}
	u, err := url.Parse(old.RedirectURI)
	if err != nil || u.Scheme != "http" || !isLoopback(u.Hostname()) || u.Port() == "" || u.Path != CallbackPath {
		return ""
	}
	return net.JoinHostPort(host, u.Port())
}

// listen starts the callback listener, on prefer when that is free; m.mu
// is held.
func (m *Manager) listen(prefer string) error {
	var ln net.Listener
	var err error
	if prefer != "" {
		ln, err = net.Listen("tcp", prefer)
	}
	if ln == nil {
		ln, err = net.Listen("tcp", m.opt.ListenAddr)
	}
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot listen for sign-in callbacks on %s: %w; choose another address", m.opt.ListenAddr, err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	host := addr.IP.String()
	if addr.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	mux := http.NewServeMux()
	mux.Handle(CallbackPath, m.Handler())
	m.ln = ln
	m.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	m.loopback = "http://" + net.JoinHostPort(host, fmt.Sprint(addr.Port)) + CallbackPath
	srv := m.srv
	m.wg.Go(func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			m.log.Error("signin: the callback listener stopped", "err", err)
		}
	})
	m.log.Info("signin: listening for sign-in callbacks", "addr", ln.Addr().String())
	return nil
}

// Handler serves the OAuth callback, whatever path it is mounted at, so the
// service can put it on its own HTTP server behind PublicBaseURL.
func (m *Manager) Handler() http.Handler { return http.HandlerFunc(m.callback) }

func (m *Manager) callback(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		page(w, http.StatusMethodNotAllowed, "Sign-in not completed", "This address only takes the sign-in's return from the browser.")
		return
	}
	q := r.URL.Query()
	m.mu.Lock()
	f := m.pending[q.Get("state")]
	if f != nil {
		delete(m.pending, f.state) // single use, whatever happens next
	}
	m.mu.Unlock()
	if f == nil {
		m.log.Warn("signin: callback with an unknown, used or missing state refused")
		page(w, http.StatusBadRequest, "Sign-in not completed",
			"This sign-in link is not valid or was already used. Start the sign-in again from jarvisbot.")
		return
	}
	if m.now().After(f.expires) {
		m.finish(f, expiredError(f.plugin, m.opt.StateTTL))
		page(w, http.StatusBadRequest, "Sign-in not completed",
			"This sign-in to "+f.plugin+" has expired. Start it again from jarvisbot.")
		return
	}
	if e := q.Get("error"); e != "" {
		why := oauthReason(e, q.Get("error_description"))
		m.finish(f, jarvisbot.Errorf(jarvisbot.EINVALID, "the sign-in to %s was not completed: the authorization server answered %s", f.plugin, why))
		page(w, http.StatusBadRequest, "Sign-in not completed", "The sign-in to "+f.plugin+" was not completed: "+why+".")
		return
	}
	// RFC 9207: a response that names its issuer must name ours. A
	// provider's sign-in (BeginProvider) has no discovered issuer to
	// compare; its authorization URL was fixed in advance.
	if iss := q.Get("iss"); iss != "" && f.grant.Issuer != "" && iss != f.grant.Issuer {
		m.finish(f, jarvisbot.Errorf(jarvisbot.EINVALID, "the sign-in to %s was refused: the answer came from %.80q, not from %s", f.plugin, iss, f.grant.Issuer))
		page(w, http.StatusBadRequest, "Sign-in not completed", "The sign-in to "+f.plugin+" came back from the wrong server. Start it again from jarvisbot.")
		return
	}
	code := q.Get("code")
	if code == "" {
		m.finish(f, jarvisbot.Errorf(jarvisbot.EINVALID, "the sign-in to %s was not completed: the authorization server sent no code", f.plugin))
		page(w, http.StatusBadRequest, "Sign-in not completed", "The sign-in to "+f.plugin+" came back without an authorization code. Start it again from jarvisbot.")
		return
	}

	// The exchange outlives a browser that gives up: the code is spent
	// either way.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), callTimeout)
	defer cancel()
	g := f.grant
	opts := []oauth2.AuthCodeOption{oauth2.VerifierOption(f.verifier)}
	if g.Resource != "" {
		opts = append(opts, oauth2.SetAuthURLParam("resource", g.Resource))
	}
	tok, err := oauthConfig(g).Exchange(m.oauthContext(ctx, nil), code, opts...)
	if err != nil {
		why, code := tokenReason(err), jarvisbot.EUNAVAILABLE
		if refused(err) {
			code = jarvisbot.EINVALID
		}
		if clientRejected(err) {
			m.dropClient(ctx, f.plugin, g.Issuer, g.ClientID)
		}
		m.finish(f, jarvisbot.Errorf(code, "the sign-in to %s failed: exchanging the authorization code at %s: %s", f.plugin, g.TokenURL, why))
		page(w, http.StatusBadRequest, "Sign-in not completed", "The sign-in to "+f.plugin+" failed: "+why+". Start it again from jarvisbot.")
		return
	}
	g.Token = m.stamp(tok)
	err = m.storeLocked(ctx, f.plugin, g)
	if err != nil {
		m.finish(f, err)
		page(w, http.StatusInternalServerError, "Sign-in not completed", "Signed in to "+f.plugin+", but jarvisbot could not keep the sign-in in its keyring. Check jarvisbot's log, then start again.")
		return
	}
	m.mu.Lock()
	delete(m.invalid, f.plugin)
	m.mu.Unlock()
	m.finish(f, nil)
	m.log.Info("signin: signed in", "plugin", f.plugin, "grant", g)
	page(w, http.StatusOK, "Signed in to "+f.plugin, "Signed in to "+f.plugin+", you can close this tab.")
}

// finish ends f under m.mu and logs a failure.
func (m *Manager) finish(f *flow, err error) {
	m.mu.Lock()
	f.finish(err)
	m.mu.Unlock()
	if err != nil {
		m.log.Warn("signin: sign-in failed", "plugin", f.plugin, "err", err)
	}
}

// load reads the plugin's grant from the keyring.
func (m *Manager) load(ctx context.Context, plugin string) (Grant, error) {
	var g Grant
	s, err := m.opt.Keyring.Get(ctx, KeyName(plugin))
	if err != nil {
		return g, err
	}
	if err := json.Unmarshal([]byte(s), &g); err != nil {
		// The JSON error could quote the secret; say only what is wrong.
		return Grant{}, jarvisbot.Errorf(jarvisbot.EINTERNAL, "the stored sign-in for %s (%s) is damaged: sign in to %s again", plugin, KeyName(plugin), plugin)
	}
	return g, nil
}

// store writes the plugin's grant to the keyring.
func (m *Manager) store(ctx context.Context, plugin string, g Grant) error {
	b, err := json.Marshal(g)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "cannot encode the sign-in for %s", plugin)
	}
	if err := m.opt.Keyring.Set(ctx, KeyName(plugin), string(b)); err != nil {
		return jarvisbot.Errorf(jarvisbot.ErrorCode(err), "cannot keep the sign-in for %s: %w", plugin, err)
	}
	return nil
}

// storeLocked stores a new sign-in under the plugin's lock, so that a
// renewal of the old one in flight, here or in another process, cannot
// overwrite it afterwards.
func (m *Manager) storeLocked(ctx context.Context, plugin string, g Grant) error {
	unlock, err := m.lock(ctx, plugin)
	if err != nil {
		return err
	}
	defer unlock()
	return m.store(ctx, plugin, g)
}

// stamp sets the token's expiry from expires_in on jarvisbot's clock
// (x/oauth2 uses the wall clock).
func (m *Manager) stamp(tok *oauth2.Token) *oauth2.Token {
	if tok.ExpiresIn > 0 {
		tok.Expiry = m.now().Add(time.Duration(tok.ExpiresIn) * time.Second)
	}
	return tok
}

// oauthReason renders an OAuth error code and description for people.
func oauthReason(code, desc string) string {
	const max = 200
	if len(desc) > max {
		desc = desc[:max] + "…"
	}
	if desc == "" {
		return code
	}
	return code + ": " + desc
}

// tokenReason says why a token request failed without quoting the
// response body, which x/oauth2's error text may include.
func tokenReason(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if re.ErrorCode != "" {
			return oauthReason(re.ErrorCode, re.ErrorDescription)
		}
		if re.Response != nil {
			return "status " + re.Response.Status
		}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return "the server could not be reached: " + ue.Err.Error()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "the server did not answer in time"
	}
	return "the answer was not usable"
}

// pageHTML is the callback page. It is filled with html.EscapeString, not
// html/template: any use of text/template makes the linker keep every
// exported method of every type (it may call them by name), which more
// than doubles the binary and what start-up pages in.
const pageHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>jarvisbot: %[1]s</title></head>
<body style="font-family: sans-serif; max-width: 36em; margin: 4em auto">
<h1>%[1]s</h1>
<p>%[2]s</p>
</body></html>
`

// page writes the plain page the owner's browser shows after a sign-in.
func page(w http.ResponseWriter, status int, title, text string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	w.WriteHeader(status)
	fmt.Fprintf(w, pageHTML, html.EscapeString(title), html.EscapeString(text))
}
