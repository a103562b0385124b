package main

import (
	"html"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var (
	routeToolRow   = regexp.MustCompile(`data-tool="([^"]+)"`)
	routeServerRow = regexp.MustCompile(`data-server="([^"]+)" data-offered="(true|false)"`)
)

// routePage is what the dashboard's Route page says of a message: the
// tools in order, and each server's offer.
func routePage(body string) (tools []string, offered map[string]bool) {
	offered = map[string]bool{}
	for _, m := range routeToolRow.FindAllStringSubmatch(body, -1) {
		tools = append(tools, html.UnescapeString(m[1]))
	}
	for _, m := range routeServerRow.FindAllStringSubmatch(body, -1) {
		offered[html.UnescapeString(m[1])] = m[2] == "true"
	}
	return tools, offered
}

// TestDashboardRouteW1C7: over HTTP, the Route page explains a message
// with route's planner over the running catalog, and says what `route
// --json` says: the same servers offered, the same tools in the same
// order.
func TestDashboardRouteW1C7(t *testing.T) {
	e := newTestEnv(t)
	e.mustJarvis(t, "", "mcp", "add", "calculator", "--", mcpTestServer(t))
	withTelegram(t, e) // a channel that keeps serve running
	e.vars["JARVIS_TELEGRAM_OWNERS"] = "42"
	b, _, stop := serveSignedIn(t, e)
	defer stop()

	form := b.get(t, "/route")
	for _, want := range []string{`id="route-form"`, `name="message"`, `name="agent"`, `<option value="default" selected>`} {
		if !strings.Contains(form, want) {
			t.Errorf("the Route form lacks %q:\n%s", want, form)
		}
	}

	for _, tc := range []struct {
		msg     string
		offered bool // whether the calculator is offered
	}{
		{"ask the calculator what 19 plus 23 makes", true},
		{"how was your weekend", false},
	} {
		msg := tc.msg
		code, out, errOut := e.jarvis(t, "", "route", "--json", msg)
		if code != 0 {
			t.Fatalf("route --json: %d %s", code, errOut)
		}
		want := decodeRoutes(t, out)[0]
		wantOffered := map[string]bool{}
		for _, m := range want.MCP {
			wantOffered[m.Server] = m.Offered
		}
		if wantOffered["calculator"] != tc.offered || slices.Contains(want.Tools, "mcp:calculator/add") != tc.offered {
			t.Fatalf("route --json for %q: %+v", msg, want)
		}
		path := "/route?" + url.Values{"message": {msg}, "agent": {"default"}}.Encode()
		// The running catalog has the server's tools once it answered.
		var tools []string
		var offered map[string]bool
		waitFor(t, "the dashboard to route "+msg+" as route --json does", func() (bool, any) {
			tools, offered = routePage(b.get(t, path))
			return slices.Equal(tools, want.Tools) && len(offered) == len(wantOffered), map[string]any{"tools": tools, "offered": offered, "route --json": want}
		})
		for s, o := range wantOffered {
			if offered[s] != o {
				t.Errorf("%q: the dashboard says %s offered=%v, route --json %v", msg, s, offered[s], o)
			}
		}
	}
}
