package signin

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/mark3labs/mcp-go/client/transport"
	"golang.org/x/oauth2"

	"github.com/jarvisbot/jarvisbot"
)

// ClientKeyName is the keyring name of the client registration jarvisbot
// keeps for a plugin at an authorization server (its issuer), e.g.
// "signin-client:github:5f0c…". A plugin keeps one registered client per
// authorization server across sign-ins and processes; the registration
// lives in the keyring because it may carry a client secret.
func ClientKeyName(plugin, issuer string) string {
	sum := sha256.Sum256([]byte(issuer))
	return clientKeyPrefix(plugin) + hex.EncodeToString(sum[:8])
}

func clientKeyPrefix(plugin string) string { return "signin-client:" + plugin + ":" }

// registration is a client registered with an authorization server.
type registration struct {
	Issuer       string `json:"issuer"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	AuthMethod   string `json:"token_endpoint_auth_method,omitempty"`
	// RedirectURI is the redirect URI the client was registered with.
	RedirectURI string `json:"redirect_uri"`
}

// namer is the keyring's listing, when it has one: Forget uses it to find
// the plugin's registrations at every authorization server.
type namer interface {
	Names(ctx context.Context) ([]string, error)
}

// loadClient returns the plugin's registration at issuer. A sign-in stored
// before registrations were kept on their own still names its client: it
// is taken over.
func (m *Manager) loadClient(ctx context.Context, plugin, issuer string, old *Grant) (registration, bool, error) {
	var r registration
	s, err := m.opt.Keyring.Get(ctx, ClientKeyName(plugin, issuer))
	switch {
	case err == nil:
		if err := json.Unmarshal([]byte(s), &r); err != nil || r.ClientID == "" || r.Issuer != issuer {
			// Say only what is wrong: the JSON error could quote the secret.
			m.log.Warn("signin: the stored client registration is damaged; registering again", "plugin", plugin, "issuer", issuer)
			return registration{}, false, nil
		}
		return r, true, nil
	case jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND:
		return r, false, err
	case old != nil && old.Issuer == issuer && old.ClientID != "":
		return registration{Issuer: issuer, ClientID: old.ClientID, ClientSecret: old.ClientSecret, AuthMethod: old.AuthMethod, RedirectURI: old.RedirectURI}, true, nil
	}
	return r, false, nil
}

// saveClient keeps the plugin's registration in the keyring.
func (m *Manager) saveClient(ctx context.Context, plugin string, r registration) error {
	b, err := json.Marshal(r)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "cannot encode the client registration for %s", plugin)
	}
	if err := m.opt.Keyring.Set(ctx, ClientKeyName(plugin, r.Issuer), string(b)); err != nil {
		return jarvisbot.Errorf(jarvisbot.ErrorCode(err), "cannot keep jarvisbot's client registration for %s: %w", plugin, err)
	}
	return nil
}

// dropClient forgets the plugin's registration at issuer after the server
// refused it (invalid_client), so that the next sign-in registers again.
// A registration another sign-in has replaced meanwhile is kept.
func (m *Manager) dropClient(ctx context.Context, plugin, issuer, clientID string) {
	r, ok, err := m.loadClient(ctx, plugin, issuer, nil)
	if err != nil || !ok || r.ClientID != clientID {
		return
	}
	if err := m.opt.Keyring.Delete(ctx, ClientKeyName(plugin, issuer)); err != nil && jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		m.log.Warn("signin: cannot remove the refused client registration", "plugin", plugin, "err", err)
		return
	}
	m.log.Info("signin: the authorization server refused jarvisbot's client; the next sign-in registers again", "plugin", plugin, "issuer", issuer, "client_id", clientID)
}

// forgetClients removes the plugin's registrations: every one the keyring
// lists, else the one at the issuer of its last sign-in.
func (m *Manager) forgetClients(ctx context.Context, plugin string, old *Grant) error {
	var names []string
	if n, ok := m.opt.Keyring.(namer); ok {
		all, err := n.Names(ctx)
		if err != nil {
			return err
		}
		for _, name := range all {
			if strings.HasPrefix(name, clientKeyPrefix(plugin)) {
				names = append(names, name)
			}
		}
	} else if old != nil && old.Issuer != "" {
		names = []string{ClientKeyName(plugin, old.Issuer)}
	}
	for _, name := range names {
		if err := m.opt.Keyring.Delete(ctx, name); err != nil && jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
			return err
		}
	}
	return nil
}

// client returns the client to sign in to the plugin with at the server md
// describes: its registration there when the server still accepts it and
// its redirect URI fits this sign-in's, else a new dynamic registration
// (RFC 7591), which is kept for the next sign-ins.
func (m *Manager) client(ctx context.Context, h *transport.OAuthHandler, md *transport.AuthServerMetadata, plugin, redirectURI string, old *Grant) (registration, error) {
	r, ok, err := m.loadClient(ctx, plugin, md.Issuer, old)
	if err != nil {
		return r, err // a locked keyring could not take the result either
	}
	if ok && redirectFits(r.RedirectURI, redirectURI) {
		if !m.clientRefused(ctx, md, r, redirectURI) {
			return r, nil
		}
		m.log.Info("signin: the authorization server no longer knows jarvisbot's client; registering again", "plugin", plugin, "issuer", md.Issuer, "client_id", r.ClientID)
	}
	if md.RegistrationEndpoint == "" {
		return r, jarvisbot.Errorf(jarvisbot.EINVALID, "%s's authorization server %s offers no dynamic client registration: register jarvisbot there (redirect URI %s) and sign in with its client id", plugin, md.Issuer, redirectURI)
	}
	if err := h.RegisterClient(ctx, m.opt.ClientName); err != nil {
		return r, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot register jarvisbot with %s's authorization server %s: %v", plugin, md.Issuer, err)
	}
	r = registration{Issuer: md.Issuer, ClientID: h.GetClientID(), ClientSecret: h.GetClientSecret(), AuthMethod: h.GetTokenEndpointAuthMethod(), RedirectURI: redirectURI}
	m.log.Info("signin: registered jarvisbot as a client", "plugin", plugin, "issuer", md.Issuer, "client_id", r.ClientID)
	return r, m.saveClient(ctx, plugin, r)
}

// redirectFits reports whether a client registered with redirect URI
// registered may use current: the same URI, or a loopback one that
// differs only in its port, which the server must allow (RFC 8252 §7.3).
func redirectFits(registered, current string) bool {
	if registered == current {
		return true
	}
	a, err1 := url.Parse(registered)
	b, err2 := url.Parse(current)
	if err1 != nil || err2 != nil {
		return false
	}
	return a.Scheme == "http" && b.Scheme == "http" && isLoopback(a.Hostname()) &&
		a.Hostname() == b.Hostname() && a.Path == b.Path && a.RawQuery == b.RawQuery
}

// clientRefused asks the token endpoint whether it still knows the client,
// before the owner is sent to a browser page that would only say it does
// not: an authorization code that was never issued, sent with the
// client's credentials, draws invalid_grant from a server that knows the
// client and invalid_client from one that does not (RFC 6749 §5.2). Any
// other answer, or none, keeps the client.
func (m *Manager) clientRefused(ctx context.Context, md *transport.AuthServerMetadata, r registration, redirectURI string) bool {
	g := Grant{ClientID: r.ClientID, ClientSecret: r.ClientSecret, AuthMethod: r.AuthMethod, RedirectURI: redirectURI, TokenURL: md.TokenEndpoint, AuthURL: md.AuthorizationEndpoint}
	_, err := oauthConfig(g).Exchange(m.oauthContext(ctx, nil), "jarvisbot-client-check-"+rand.Text(),
		oauth2.VerifierOption(oauth2.GenerateVerifier()))
	return clientRejected(err)
}

// clientRejected reports whether a token request failed because the server
// does not accept the client.
func clientRejected(err error) bool {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		return false
	}
	return re.ErrorCode == "invalid_client" ||
		(re.ErrorCode == "" && re.Response != nil && re.Response.StatusCode == http.StatusUnauthorized)
}
