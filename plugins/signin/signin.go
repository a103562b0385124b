// Package signin signs the owner in to a plugin's hosted MCP server with
// OAuth 2.1 (SPEC P3/P4), as the MCP authorization spec describes, and keeps
// the result usable.
//
// Data flows like this. Begin probes the MCP server, discovers its
// authorization server (RFC 9728 protected resource metadata, then RFC 8414
// or OpenID Connect discovery), registers jarvisbot as a client (RFC 7591)
// where the server offers it — once per plugin and authorization server,
// kept in the keyring under ClientKeyName and reused until the server
// refuses it — and returns an authorization URL carrying a PKCE S256
// challenge, a state and the RFC 8707 resource. The owner opens it; the
// browser comes back to jarvisbot's own callback (a loopback listener, or
// Handler mounted behind a public base URL), which checks the state
// (single use, expiring), exchanges the code and stores the Grant — client
// and tokens — in the keyring under KeyName(plugin), and nowhere else.
// Token hands the MCP connection a valid access token, refreshing it
// shortly before it expires, under a lock that processes sharing the
// keyring also respect; when the refresh is refused or the resource server
// rejects the token (Invalidate) and a refresh cannot repair it, Token
// reports ErrNeedsAttention until a new sign-in succeeds, which brings the
// plugin back without a restart.
//
// Discovery and registration use mark3labs/mcp-go's OAuthHandler; the
// authorization URL, PKCE, code exchange and refresh use golang.org/x/oauth2.
// No token, code, verifier or client secret appears in a log line, an error
// or a page this package writes.
package signin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store/secrets"
)

// Keyring is what signin needs of the keyring (secrets.Keyring satisfies
// it). Get returns an error with code ENOTFOUND when the name is unset.
type Keyring interface {
	Get(ctx context.Context, name string) (string, error)
	Set(ctx context.Context, name, value string) error
	Delete(ctx context.Context, name string) error
}

var _ Keyring = (*secrets.Keyring)(nil)

// KeyName is the keyring name of a plugin's sign-in, e.g. "signin:github".
func KeyName(plugin string) string { return "signin:" + plugin }

// ErrNeedsAttention is wrapped (with code EUNAVAILABLE) by Token when the
// plugin has no usable sign-in: never signed in, or its sign-in expired or
// was revoked. A new sign-in (Begin) clears it.
var ErrNeedsAttention = errors.New("the plugin's sign-in needs attention")

// CallbackPath is where the authorization server sends the browser back,
// below the loopback listener or Options.PublicBaseURL.
const CallbackPath = "/oauth/callback"

// Defaults for Options.
const (
	DefaultListenAddr = "127.0.0.1:0"
	DefaultStateTTL   = 10 * time.Minute
	DefaultClientName = "jarvisbot"
)

// refreshAhead is how long before its expiry an access token is renewed,
// so a request never leaves with a token that dies on the way; a token
// that lives less than four times as long is renewed with a quarter of its
// life left instead (see renewMargin).
const refreshAhead = time.Minute

// callTimeout bounds one exchange or refresh with the authorization server.
const callTimeout = 30 * time.Second

// Options configures a Manager. Only Keyring is required.
type Options struct {
	Keyring    Keyring
	HTTPClient *http.Client // discovery, registration and token calls; nil: 30 s timeout
	// ListenAddr is the loopback callback listener's address, default
	// 127.0.0.1:0 (any free port). With PublicBaseURL set and ListenAddr
	// empty no listener is started: the service mounts Handler itself.
	ListenAddr string
	// PublicBaseURL, when set, makes the redirect URI
	// PublicBaseURL+"/oauth/callback" instead of the loopback listener's.
	// It must be https (http only for a loopback host).
	PublicBaseURL string
	StateTTL      time.Duration    // how long a started sign-in may take, default 10 min
	Now           func() time.Time // clock, default time.Now
	ClientName    string           // client_name for dynamic registration, default "jarvisbot"
	Logger        *slog.Logger     // default: discard
	// LockDir holds the lock files that keep two processes sharing the
	// keyring (the CLI beside the service) from renewing one sign-in at
	// once. Default: the keyring's directory when it has one (the file
	// backend); every process must use the same. Without one, renewals
	// are serialised within the process only.
	LockDir string
}

// Manager runs sign-ins and hands out tokens. It is safe for concurrent use.
type Manager struct {
	opt Options
	hc  *http.Client
	log *slog.Logger
	now func() time.Time

	// base ends with Close and bounds the refreshes run on callers' behalf.
	base   context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu         sync.Mutex
	closed     bool
	pending    map[string]*flow         // by state: flows waiting for their callback
	latest     map[string]*flow         // by plugin: the newest flow, pending or finished, for Wait
	invalid    map[string]string        // by plugin: the access token the resource server refused, or anyToken
	refreshing map[string]*refresh      // by plugin: the refresh in flight
	locks      map[string]chan struct{} // by plugin: held while its keyring entry is renewed or replaced
	ln         net.Listener
	srv        *http.Server
	loopback   string // the listener's redirect URI
}

// NewManager returns a Manager. It starts nothing: the callback listener
// starts with the first Begin.
func NewManager(opt Options) *Manager {
	if opt.HTTPClient == nil {
		opt.HTTPClient = &http.Client{Timeout: callTimeout}
	}
	if opt.ListenAddr == "" && opt.PublicBaseURL == "" {
		opt.ListenAddr = DefaultListenAddr
	}
	if opt.StateTTL <= 0 {
		opt.StateTTL = DefaultStateTTL
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.ClientName == "" {
		opt.ClientName = DefaultClientName
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if d, ok := opt.Keyring.(interface{ Dir() string }); ok && opt.LockDir == "" {
		opt.LockDir = d.Dir()
	}
	base, cancel := context.WithCancel(context.Background())
	return &Manager{
		opt:        opt,
		hc:         opt.HTTPClient,
		log:        opt.Logger,
		now:        opt.Now,
		base:       base,
		cancel:     cancel,
		pending:    map[string]*flow{},
		latest:     map[string]*flow{},
		invalid:    map[string]string{},
		refreshing: map[string]*refresh{},
		locks:      map[string]chan struct{}{},
	}
}

// Close stops the callback listener, fails the sign-ins still waiting for
// their callback, and waits for refreshes in flight to end. It is
// idempotent.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	for state, f := range m.pending {
		delete(m.pending, state)
		f.finish(jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the sign-in to %s was not completed: jarvisbot stopped waiting for it", f.plugin))
	}
	srv := m.srv
	m.mu.Unlock()
	m.cancel()
	var err error
	if srv != nil {
		// Let a callback that just finished a sign-in send its page
		// before the listener goes (the browser would see a reset).
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		if err = srv.Shutdown(sctx); err != nil {
			err = srv.Close()
		}
		cancel()
	}
	m.wg.Wait()
	return err
}

// Invalidate records that the resource server answered 401 to this
// plugin's token: the next Token call tries one refresh, and if that fails
// the plugin needs attention.
func (m *Manager) Invalidate(plugin string) { m.invalidate(plugin, anyToken) }

// anyToken marks as refused whatever access token the plugin has.
const anyToken = "\x00any"

// invalidate records that the resource server refused token, the plugin's
// access token that was sent: a token another process has renewed since
// is not refused.
func (m *Manager) invalidate(plugin, token string) {
	m.mu.Lock()
	m.invalid[plugin] = token
	m.mu.Unlock()
	m.log.Info("signin: the server refused the plugin's token; it will be renewed", "plugin", plugin)
}

// Forget deletes the plugin's sign-in and its client registrations from
// the keyring and abandons a sign-in in progress. Forgetting a plugin that
// has none is not an error.
func (m *Manager) Forget(ctx context.Context, plugin string) error {
	if err := validPlugin(plugin); err != nil {
		return err
	}
	m.mu.Lock()
	for state, f := range m.pending {
		if f.plugin == plugin {
			delete(m.pending, state)
			f.finish(jarvisbot.Errorf(jarvisbot.ECONFLICT, "the sign-in to %s was abandoned: its sign-in was removed", plugin))
		}
	}
	delete(m.invalid, plugin)
	m.mu.Unlock()
	// Under the lock: a renewal in flight must not store the sign-in again
	// after it was removed.
	unlock, err := m.lock(ctx, plugin)
	if err != nil {
		return err
	}
	defer unlock()
	var old *Grant
	if g, err := m.load(ctx, plugin); err == nil {
		old = &g
	}
	if err := m.forgetClients(ctx, plugin, old); err != nil {
		return err
	}
	err = m.opt.Keyring.Delete(ctx, KeyName(plugin))
	if err != nil && jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		return err
	}
	m.log.Info("signin: sign-in removed", "plugin", plugin)
	return nil
}

// validPlugin checks that plugin makes a keyring name.
func validPlugin(plugin string) error {
	if plugin == "" {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "a sign-in needs the plugin's name")
	}
	if err := secrets.ValidName(ClientKeyName(plugin, "")); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "plugin name %.40q cannot name a sign-in: use letters, digits and _ . -", plugin)
	}
	return nil
}

// needsAttention is the error Token returns when the plugin has no usable
// sign-in; why says what happened, in words the owner can act on.
func needsAttention(plugin, why string) error {
	return &jarvisbot.Error{
		Code:    jarvisbot.EUNAVAILABLE,
		Message: fmt.Sprintf("plugin %s needs attention: %s; sign in to %s again to bring its tools back", plugin, why, plugin),
		Err:     ErrNeedsAttention,
	}
}

// Grant is a plugin's sign-in: the client registration, where to renew it,
// and the tokens. It is stored as JSON in the keyring and nowhere else; its
// String, GoString, Format and LogValue redact the secrets.
type Grant struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	// AuthMethod is the registered token_endpoint_auth_method
	// (none, client_secret_post, client_secret_basic); "" lets x/oauth2 probe.
	AuthMethod string `json:"token_endpoint_auth_method,omitempty"`
	// RedirectURI is the sign-in's redirect URI; the next sign-in's
	// loopback listener takes its port again when it is free.
	RedirectURI string        `json:"redirect_uri,omitempty"`
	TokenURL    string        `json:"token_url"`
	AuthURL     string        `json:"auth_url"`
	Resource    string        `json:"resource"` // RFC 8707, the MCP server's canonical URL
	Issuer      string        `json:"issuer"`
	Scopes      []string      `json:"scopes,omitempty"`
	Token       *oauth2.Token `json:"token,omitempty"` // nil once the sign-in ended
}

// String describes the grant without its secrets.
func (g Grant) String() string {
	return fmt.Sprintf("signin.Grant{issuer: %q, client: %q, resource: %q, scopes: %q, %s}",
		g.Issuer, g.ClientID, g.Resource, g.Scopes, g.tokenText())
}

// GoString is String: %#v must not print the secrets either.
func (g Grant) GoString() string { return g.String() }

// Format prints String for every verb, so that no verb (%d, %x, …) falls
// back to printing the fields.
func (g Grant) Format(f fmt.State, verb rune) { fmt.Fprint(f, g.String()) }

// LogValue logs the grant without its secrets.
func (g Grant) LogValue() slog.Value {
	attrs := []slog.Attr{
		slog.String("issuer", g.Issuer),
		slog.String("client_id", g.ClientID),
		slog.String("resource", g.Resource),
		slog.Bool("signed_in", g.Token != nil && g.Token.AccessToken != ""),
	}
	if g.Token != nil && !g.Token.Expiry.IsZero() {
		attrs = append(attrs, slog.Time("expiry", g.Token.Expiry))
	}
	return slog.GroupValue(attrs...)
}

func (g Grant) tokenText() string {
	switch {
	case g.Token == nil || g.Token.AccessToken == "":
		return "token: none"
	case g.Token.Expiry.IsZero():
		return "token: [redacted]"
	}
	return "token: [redacted], expires " + g.Token.Expiry.UTC().Format(time.RFC3339)
}
