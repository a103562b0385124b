package fakeoauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakeoauth"
)

const redirect = "http://127.0.0.1:9/oauth/callback"

// postRefresh refreshes rt for the resource and returns the decoded
// answer and its status. x/oauth2 cannot send resource on a refresh, so the
// form is posted directly.
func postRefresh(t *testing.T, cfg *oauth2.Config, rt string) (map[string]any, int) {
	t.Helper()
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {cfg.ClientID}, "resource": {"https://mcp.example/mcp"}}
	resp, err := http.PostForm(cfg.Endpoint.TokenURL, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return out, resp.StatusCode
}

// server starts a fake with one resource and one dynamically registered
// public client, and returns its x/oauth2 config.
func server(t *testing.T, opts ...fakeoauth.Option) (*fakeoauth.AuthServer, *oauth2.Config, *clock.Fake) {
	t.Helper()
	clk := clock.NewFake(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	as := fakeoauth.NewAuthServer(t, append([]fakeoauth.Option{fakeoauth.WithClock(clk.Now)}, opts...)...)
	as.AddResource("https://mcp.example/mcp")
	body := `{"client_name":"test","redirect_uris":["` + redirect + `"],"token_endpoint_auth_method":"none"}`
	resp, err := http.Post(as.URL+"/register", "application/json", strings.NewReader(body))
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("register: %v %v", resp.Status, err)
	}
	defer resp.Body.Close()
	var reg struct {
		ClientID string `json:"client_id"`
	}
	json.NewDecoder(resp.Body).Decode(&reg)
	cfg := &oauth2.Config{
		ClientID:    reg.ClientID,
		Endpoint:    oauth2.Endpoint{AuthURL: as.URL + "/authorize", TokenURL: as.URL + "/token", AuthStyle: oauth2.AuthStyleInParams},
		RedirectURL: redirect,
	}
	return as, cfg, clk
}

var resource = oauth2.SetAuthURLParam("resource", "https://mcp.example/mcp")

// code approves a sign-in with verifier and returns its code.
func code(t *testing.T, as *fakeoauth.AuthServer, cfg *oauth2.Config, verifier string) string {
	t.Helper()
	u, err := url.Parse(as.Approve(cfg.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier), resource)))
	if err != nil || u.Query().Get("state") != "st" || u.Query().Get("iss") != as.URL {
		t.Fatalf("approve: %v %v", u, err)
	}
	return u.Query().Get("code")
}

func oauthCode(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		return re.ErrorCode + ": " + re.ErrorDescription
	}
	return ""
}

func TestAuthorizationCodeRules(t *testing.T) {
	ctx := context.Background()
	v := oauth2.GenerateVerifier()
	for _, tc := range []struct {
		name string
		prep func(*clock.Fake)
		opts []oauth2.AuthCodeOption
		want string
	}{
		{"valid", nil, []oauth2.AuthCodeOption{oauth2.VerifierOption(v), resource}, ""},
		{"wrong verifier", nil, []oauth2.AuthCodeOption{oauth2.VerifierOption(oauth2.GenerateVerifier()), resource}, "PKCE"},
		{"no verifier", nil, []oauth2.AuthCodeOption{resource}, "PKCE"},
		{"other redirect_uri", nil, []oauth2.AuthCodeOption{oauth2.VerifierOption(v), resource, oauth2.SetAuthURLParam("redirect_uri", "http://127.0.0.1:9/other")}, "redirect_uri"},
		{"no resource", nil, []oauth2.AuthCodeOption{oauth2.VerifierOption(v)}, "invalid_target"},
		{"expired code", func(c *clock.Fake) { c.Advance(fakeoauth.CodeLifetime) }, []oauth2.AuthCodeOption{oauth2.VerifierOption(v), resource}, "expired"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as, cfg, clk := server(t)
			c := code(t, as, cfg, v)
			if tc.prep != nil {
				tc.prep(clk)
			}
			tok, err := cfg.Exchange(ctx, c, tc.opts...)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if _, _, ok := as.Introspect(tok.AccessToken); !ok {
					t.Fatal("the issued access token is not live")
				}
				// A second exchange is refused and ends the first one's tokens.
				_, err := cfg.Exchange(ctx, c, tc.opts...)
				if !strings.Contains(oauthCode(err), "already used") {
					t.Errorf("replayed code: %v", err)
				}
				if _, _, ok := as.Introspect(tok.AccessToken); ok {
					t.Error("the replayed code's tokens still work")
				}
				return
			}
			if got := oauthCode(err); !strings.Contains(got, tc.want) {
				t.Errorf("exchange error %q, want %q", got, tc.want)
			}
		})
	}
}

func TestAuthorizeRefusesBadRequests(t *testing.T) {
	as, cfg, _ := server(t)
	// No PKCE: an error redirect, no code.
	u, _ := url.Parse(as.Approve(cfg.AuthCodeURL("st", resource)))
	if u.Query().Get("error") != "invalid_request" || u.Query().Get("code") != "" {
		t.Errorf("no PKCE: %v", u)
	}
	// A redirect URI the client never registered: no redirect at all.
	bad := *cfg
	bad.RedirectURL = "https://attacker.example/cb"
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(bad.AuthCodeURL("st", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()), resource))
	if err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Errorf("unregistered redirect: %v %v", resp.Status, err)
	}
	resp.Body.Close()
}

func TestRefreshRotationAndExpiry(t *testing.T) {
	ctx := context.Background()
	as, cfg, clk := server(t, fakeoauth.WithAccessTokenLifetime(time.Minute), fakeoauth.WithRefreshTokenLifetime(time.Hour))
	v := oauth2.GenerateVerifier()
	tok, err := cfg.Exchange(ctx, code(t, as, cfg, v), oauth2.VerifierOption(v), resource)
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute)
	if _, _, ok := as.Introspect(tok.AccessToken); ok {
		t.Fatal("an access token outlived its lifetime")
	}

	refresh := func(rt string) (map[string]any, int) { return postRefresh(t, cfg, rt) }
	out, st := refresh(tok.RefreshToken)
	rt2, _ := out["refresh_token"].(string)
	if st != http.StatusOK || rt2 == "" || rt2 == tok.RefreshToken {
		t.Fatalf("refresh: %d %v", st, out["error"])
	}
	at2, _ := out["access_token"].(string)
	// Reusing the rotated refresh token is refused and ends the sign-in.
	if out, st := refresh(tok.RefreshToken); st != http.StatusBadRequest || out["error"] != "invalid_grant" {
		t.Errorf("reused refresh token: %d %v", st, out)
	}
	if _, _, ok := as.Introspect(at2); ok {
		t.Error("refresh token reuse left the sign-in alive")
	}
	if out, _ := refresh(rt2); out["error"] != "invalid_grant" {
		t.Errorf("the newest refresh token of an ended sign-in: %v", out)
	}

	// Refresh tokens expire after their lifetime.
	v = oauth2.GenerateVerifier()
	tok, err = cfg.Exchange(ctx, code(t, as, cfg, v), oauth2.VerifierOption(v), resource)
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour)
	if out, _ := refresh(tok.RefreshToken); !strings.Contains(out["error_description"].(string), "expired") {
		t.Errorf("expired refresh token: %v", out)
	}
}

// TestReuseWithoutDetection pins WithoutReuseDetection: a rotated refresh
// token is refused, and the sign-in it belonged to lives on.
func TestReuseWithoutDetection(t *testing.T) {
	ctx := context.Background()
	as, cfg, _ := server(t, fakeoauth.WithoutReuseDetection())
	v := oauth2.GenerateVerifier()
	tok, err := cfg.Exchange(ctx, code(t, as, cfg, v), oauth2.VerifierOption(v), resource)
	if err != nil {
		t.Fatal(err)
	}
	refresh := func(rt string) (string, map[string]any) {
		out, _ := postRefresh(t, cfg, rt)
		at, _ := out["access_token"].(string)
		return at, out
	}
	at2, out := refresh(tok.RefreshToken)
	if at2 == "" {
		t.Fatalf("refresh: %v", out)
	}
	if _, out := refresh(tok.RefreshToken); out["error"] != "invalid_grant" {
		t.Errorf("reused refresh token: %v", out)
	}
	if _, _, ok := as.Introspect(at2); !ok {
		t.Error("a reused refresh token ended the sign-in")
	}
}

// TestRemoveClient pins that a removed client is refused as invalid_client.
func TestRemoveClient(t *testing.T) {
	as, cfg, _ := server(t)
	as.RemoveClient(cfg.ClientID)
	_, err := cfg.Exchange(context.Background(), "any", oauth2.VerifierOption(oauth2.GenerateVerifier()), resource)
	if !strings.HasPrefix(oauthCode(err), "invalid_client") {
		t.Errorf("a removed client's exchange: %v", err)
	}
}
