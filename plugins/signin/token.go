package signin

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/jarvisbot/jarvisbot"
)

// refresh is a token refresh shared by the Token calls that need it: with
// refresh token rotation a second request with the same refresh token is
// refused, and may get the whole grant revoked.
type refresh struct {
	done  chan struct{}
	token string
	err   error
}

// Token returns a valid access token for the plugin, refreshing it (and
// storing the new one) when little of its life is left (renewMargin) or
// the resource server refused it (Invalidate). It returns an error
// wrapping ErrNeedsAttention, with code EUNAVAILABLE, when there is no
// sign-in or the refresh was refused; an authorization server that cannot
// be reached gives a plain EUNAVAILABLE error and the sign-in is kept for
// the next try.
func (m *Manager) Token(ctx context.Context, plugin string) (string, error) {
	if err := validPlugin(plugin); err != nil {
		return "", err
	}
	g, err := m.read(ctx, plugin)
	if err != nil {
		if jarvisbot.ErrorCode(err) == jarvisbot.ENOTFOUND {
			return "", needsAttention(plugin, "it is not signed in")
		}
		return "", err
	}
	if g.Token == nil || g.Token.AccessToken == "" {
		return "", needsAttention(plugin, "its sign-in ended")
	}
	if !m.refusedToken(plugin, g.Token.AccessToken) && !m.expiring(g.Token) {
		return g.Token.AccessToken, nil
	}
	r := m.startRefresh(plugin)
	select {
	case <-r.done:
		return r.token, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// read reads the plugin's grant without its lock, and again under it when
// that fails: the file keyring rewrites an entry in place, so a read while
// another process stores it may see half a file, and every writer of a
// sign-in holds the lock.
func (m *Manager) read(ctx context.Context, plugin string) (Grant, error) {
	g, err := m.load(ctx, plugin)
	if err == nil || jarvisbot.ErrorCode(err) == jarvisbot.ENOTFOUND {
		return g, err
	}
	unlock, lerr := m.lock(ctx, plugin)
	if lerr != nil {
		return g, err
	}
	defer unlock()
	return m.load(ctx, plugin)
}

// refusedToken reports whether the resource server refused token, the
// plugin's current access token.
func (m *Manager) refusedToken(plugin, token string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	refused, ok := m.invalid[plugin]
	return ok && (refused == anyToken || refused == token)
}

func (m *Manager) clearInvalid(plugin string) {
	m.mu.Lock()
	delete(m.invalid, plugin)
	m.mu.Unlock()
}

// expiring reports whether tok is due for renewal.
func (m *Manager) expiring(tok *oauth2.Token) bool {
	return !tok.Expiry.IsZero() && !m.now().Add(renewMargin(tok)).Before(tok.Expiry)
}

// renewMargin is how long before its expiry tok is renewed: refreshAhead,
// but at most a quarter of the token's lifetime, so that a token living a
// minute or less is renewed once in its life, not before every request.
func renewMargin(tok *oauth2.Token) time.Duration {
	if life := time.Duration(tok.ExpiresIn) * time.Second; life > 0 && life/4 < refreshAhead {
		return life / 4
	}
	return refreshAhead
}

// startRefresh returns the plugin's refresh in flight, starting one if
// there is none. It runs on the Manager's context, not the caller's: a
// caller that gives up after the server rotated the refresh token must not
// keep the new one from being stored.
func (m *Manager) startRefresh(plugin string) *refresh {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r := m.refreshing[plugin]; r != nil {
		return r
	}
	r := &refresh{done: make(chan struct{})}
	if m.closed {
		r.err = errClosed()
		close(r.done)
		return r
	}
	m.refreshing[plugin] = r
	m.wg.Go(func() {
		ctx, cancel := context.WithTimeout(m.base, callTimeout)
		defer cancel()
		r.token, r.err = m.refresh(ctx, plugin)
		m.mu.Lock()
		delete(m.refreshing, plugin)
		m.mu.Unlock()
		close(r.done)
	})
	return r
}

// refresh renews the plugin's access token with its refresh token, holding
// the plugin's lock from reading the keyring to writing the result.
func (m *Manager) refresh(ctx context.Context, plugin string) (string, error) {
	unlock, err := m.lock(ctx, plugin)
	if err != nil {
		return "", err
	}
	defer unlock()
	// Read again under the lock: a refresh that ended since the caller
	// looked, here or in another process, may have done the work already.
	g, err := m.load(ctx, plugin)
	if err != nil {
		if jarvisbot.ErrorCode(err) == jarvisbot.ENOTFOUND {
			return "", needsAttention(plugin, "it is not signed in")
		}
		return "", err
	}
	if g.Token == nil || g.Token.AccessToken == "" {
		return "", needsAttention(plugin, "its sign-in ended")
	}
	forced := m.refusedToken(plugin, g.Token.AccessToken)
	if !forced && !m.expiring(g.Token) {
		m.clearInvalid(plugin) // the refused token was replaced meanwhile
		return g.Token.AccessToken, nil
	}
	for reread := false; ; reread = true {
		old := g.Token
		stillValid := !forced && m.now().Before(old.Expiry)
		if old.RefreshToken == "" {
			if stillValid {
				return old.AccessToken, nil
			}
			return "", m.end(ctx, plugin, g, "its sign-in expired and cannot be renewed without the owner")
		}
		// An empty access token makes x/oauth2 refresh at once.
		src := oauthConfig(g).TokenSource(m.oauthContext(ctx, &g), &oauth2.Token{RefreshToken: old.RefreshToken})
		tok, err := src.Token()
		if err == nil {
			return m.renewed(ctx, plugin, g, tok)
		}
		why := tokenReason(err)
		if !refused(err) {
			m.log.Warn("signin: cannot renew the sign-in now", "plugin", plugin, "reason", why)
			if stillValid {
				return old.AccessToken, nil
			}
			return "", jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot renew the sign-in to %s now: %s at %s; jarvisbot tries again at the next use", plugin, why, g.TokenURL)
		}
		// Before giving up, read the keyring again: a process that does
		// not share the lock may have renewed the sign-in with this same
		// refresh token, and the server refused it for that reason.
		cur, lerr := m.load(ctx, plugin)
		if !reread && lerr == nil && cur.Token != nil && cur.Token.AccessToken != "" && cur.Token.RefreshToken != old.RefreshToken {
			m.log.Info("signin: the sign-in was renewed elsewhere meanwhile", "plugin", plugin)
			g, forced = cur, false
			if !m.expiring(cur.Token) {
				m.clearInvalid(plugin)
				return cur.Token.AccessToken, nil
			}
			continue
		}
		if clientRejected(err) {
			m.dropClient(ctx, plugin, g.Issuer, g.ClientID)
		}
		return "", m.end(ctx, plugin, g, "its sign-in expired or was revoked (the authorization server answered "+why+")")
	}
}

// renewed stores the grant with its renewed token; the plugin's lock is held.
func (m *Manager) renewed(ctx context.Context, plugin string, g Grant, tok *oauth2.Token) (string, error) {
	if tok.AccessToken == "" {
		return "", jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot renew the sign-in to %s: %s answered without an access token", plugin, g.TokenURL)
	}
	g.Token = m.stamp(tok)
	if err := m.store(ctx, plugin, g); err != nil {
		return "", err
	}
	m.clearInvalid(plugin)
	m.log.Info("signin: sign-in renewed", "plugin", plugin, "grant", g)
	return tok.AccessToken, nil
}

// end drops the plugin's tokens, keeping its client registration for the
// next sign-in, so every process sharing the keyring sees that it needs
// attention. The plugin's lock is held.
func (m *Manager) end(ctx context.Context, plugin string, g Grant, why string) error {
	g.Token = nil
	err := m.store(ctx, plugin, g)
	m.clearInvalid(plugin)
	m.log.Warn("signin: the plugin needs attention", "plugin", plugin, "reason", why)
	if err != nil {
		m.log.Error("signin: cannot record the ended sign-in", "plugin", plugin, "err", err)
	}
	return needsAttention(plugin, why)
}

// refused reports whether the authorization server refused a refresh for
// good (as opposed to being unreachable or failing for now).
func refused(err error) bool {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		return false
	}
	switch re.ErrorCode {
	case "invalid_grant", "invalid_client", "unauthorized_client", "invalid_scope", "invalid_target":
		return true
	}
	return re.Response != nil && re.Response.StatusCode >= 400 && re.Response.StatusCode < 500
}

// oauthContext gives x/oauth2 the Manager's HTTP client; for a refresh of
// g it also adds g's resource to the request.
func (m *Manager) oauthContext(ctx context.Context, g *Grant) context.Context {
	hc := m.hc
	if g != nil && g.Resource != "" {
		c := *m.hc
		c.Transport = resourceParam{next: m.hc.Transport, resource: g.Resource}
		hc = &c
	}
	return context.WithValue(ctx, oauth2.HTTPClient, hc)
}

// resourceParam adds the RFC 8707 resource parameter to form POSTs that
// lack it. x/oauth2 takes extra parameters for a code exchange but not for
// a refresh, and the MCP authorization spec requires it on every token
// request.
type resourceParam struct {
	next     http.RoundTripper
	resource string
}

func (t resourceParam) RoundTrip(r *http.Request) (*http.Response, error) {
	next := t.next
	if next == nil {
		next = http.DefaultTransport
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if r.Method != http.MethodPost || r.Body == nil || mt != "application/x-www-form-urlencoded" {
		return next.RoundTrip(r)
	}
	body, err := io.ReadAll(r.Body)
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, err
	}
	if form.Get("resource") == "" {
		form.Set("resource", t.resource)
	}
	enc := form.Encode()
	r2 := r.Clone(r.Context())
	r2.Body = io.NopCloser(strings.NewReader(enc))
	r2.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(enc)), nil }
	r2.ContentLength = int64(len(enc))
	return next.RoundTrip(r2)
}

// Transport returns an http.RoundTripper for the plugin's MCP connection:
// it sets the Authorization header from Token, and calls Invalidate when
// the server answers 401, so the next request renews the token or reports
// ErrNeedsAttention. next nil means http.DefaultTransport.
func (m *Manager) Transport(plugin string, next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &bearer{m: m, plugin: plugin, next: next}
}

type bearer struct {
	m      *Manager
	plugin string
	next   http.RoundTripper
}

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	tok, err := b.m.Token(r.Context(), b.plugin)
	if err != nil {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, err
	}
	r2 := r.Clone(r.Context())
	r2.Header.Set("Authorization", "Bearer "+tok)
	resp, err := b.next.RoundTrip(r2)
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		b.m.invalidate(b.plugin, tok)
	}
	return resp, err
}
