package fakeoauth

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// MCPOption configures a ProtectedMCP.
type MCPOption func(*ProtectedMCP)

// WithoutMetadataHint leaves resource_metadata out of the 401 challenge, so
// clients must find the metadata at the RFC 9728 well-known path.
func WithoutMetadataHint() MCPOption { return func(p *ProtectedMCP) { p.noHint = true } }

// ProtectedMCP is an MCP server (one tool, whoami) that answers 401 to any
// request without a live access token of its AuthServer issued for it.
type ProtectedMCP struct {
	URL string // the MCP endpoint, SERVER/mcp, and the RFC 8707 resource

	noHint       bool
	unauthorized atomic.Int64
}

// NewProtectedMCP starts a protected MCP server trusting as, closed when
// the test ends. Its protected resource metadata is served at
// /.well-known/oauth-protected-resource and, path-inserted,
// /.well-known/oauth-protected-resource/mcp.
func NewProtectedMCP(t testing.TB, as *AuthServer, opts ...MCPOption) *ProtectedMCP {
	t.Helper()
	p := &ProtectedMCP{}
	for _, o := range opts {
		o(p)
	}
	s := server.NewMCPServer("fake-protected-mcp", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("whoami", mcp.WithDescription("Who the caller is signed in as."), mcp.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			id, _ := ctx.Value(identityKey{}).(string)
			return mcp.NewToolResultText(id), nil
		})

	mux := http.NewServeMux()
	srv := httptest.NewUnstartedServer(mux)
	base := "http://" + srv.Listener.Addr().String()
	p.URL = base + "/mcp"
	as.AddResource(p.URL)

	prm := server.NewProtectedResourceMetadataHandler(server.ProtectedResourceMetadataConfig{
		Resource:               p.URL,
		AuthorizationServers:   []string{as.URL},
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "fake protected MCP server",
	})
	mux.Handle("/.well-known/oauth-protected-resource", prm)
	mux.Handle(server.ProtectedResourceMetadataPath(p.URL), prm)

	challenge := `Bearer resource_metadata="` + base + `/.well-known/oauth-protected-resource"`
	if p.noHint {
		challenge = `Bearer realm="fake"`
	}
	mcpHTTP := server.NewStreamableHTTPServer(s,
		server.WithStateLess(true),
		server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			return context.WithValue(ctx, identityKey{}, r.Header.Get(identityHeader))
		}))
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del(identityHeader) // only this middleware sets it
		tok, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		resource, clientID, ok := as.Introspect(tok)
		if !found || !ok || resource != p.URL {
			p.unauthorized.Add(1)
			c := challenge
			if found {
				c += `, error="invalid_token"`
			}
			w.Header().Set("WWW-Authenticate", c)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		r.Header.Set(identityHeader, fmt.Sprintf("%s via %s", Subject, clientID))
		mcpHTTP.ServeHTTP(w, r)
	}))
	srv.Start()
	t.Cleanup(srv.Close)
	return p
}

// Unauthorized is the number of requests answered 401 so far.
func (p *ProtectedMCP) Unauthorized() int { return int(p.unauthorized.Load()) }

type identityKey struct{}

// identityHeader carries the verified caller from the middleware to the
// tool, through mcp-go's HTTP context function.
const identityHeader = "X-Fakeauth-Identity"
