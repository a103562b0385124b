package google

import (
	"net/http"

	"golang.org/x/oauth2"

	"github.com/jarvisbot/jarvisbot/internal/retry"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/native"
)

// SignedIn is the client the tools run on in these tests, as in the
// service: a bearer token over the retrying transport (next, when given,
// replaces it). Exported for the package's external tests too.
func SignedIn(next http.RoundTripper) *http.Client {
	if next == nil {
		next = &retry.Transport{}
	}
	return &http.Client{Transport: &oauth2.Transport{
		Source: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "owner-token"}),
		Base:   next,
	}}
}

// ToolMap indexes tools by name.
func ToolMap(tools []native.Tool) map[string]native.Tool {
	out := make(map[string]native.Tool, len(tools))
	for _, t := range tools {
		out[t.Name] = t
	}
	return out
}
