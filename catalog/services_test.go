package catalog_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
)

// TestServicesListEveryUsableServerC8: the prompt's service list names every
// connected server the agent may use, in id order, each with a short usage
// line, and leaves out what the agent may not have (blocked, not allowed).
func TestServicesListEveryUsableServerC8(t *testing.T) {
	v := loadSnapshot(t, "catalog-extended.json").View()
	all := v.Plan(catalog.Policy{Agent: "default"}).Services()
	if len(all) != len(v.Servers()) {
		t.Fatalf("%d services listed, want all %d servers", len(all), len(v.Servers()))
	}
	if !slices.IsSortedFunc(all, func(a, b catalog.Service) int { return strings.Compare(a.ID, b.ID) }) {
		t.Error("services are not in id order")
	}
	for _, s := range all {
		if s.Usage == "" || len(s.Usage) > 100 || strings.Contains(s.Usage, "\n") {
			t.Errorf("%s: usage %q: want one line of 1-100 bytes", s.ID, s.Usage)
		}
	}
	if again := v.Plan(catalog.Policy{Agent: "default"}).Services(); !slices.Equal(all, again) {
		t.Error("the list differs between two plans of the same view")
	}
	ids := func(list []catalog.Service) []string {
		var out []string
		for _, s := range list {
			out = append(out, s.ID)
		}
		return out
	}
	blocked := ids(v.Plan(catalog.Policy{Agent: "a", Block: []string{"mcp:google-maps/*"}}).Services())
	if slices.Contains(blocked, "google-maps") || len(blocked) != len(all)-1 {
		t.Errorf("with google-maps blocked: %v", blocked)
	}
	allowed := ids(v.Plan(catalog.Policy{Agent: "a", Allow: []string{"mcp:github", "builtin:*"}}).Services())
	if !slices.Equal(allowed, []string{"github"}) {
		t.Errorf("with only github allowed: %v", allowed)
	}
}

// TestRequestedToolsC8: asking for a service by any of its names brings the
// tools the gate would have offered for it; what the agent may not have
// never comes, and the error says why.
func TestRequestedToolsC8(t *testing.T) {
	c := loadSnapshot(t, "catalog-extended.json")
	// A server whose tools include one of the never-list.
	if err := c.SetServer(catalog.Server{ID: "ops", Connected: true}, []catalog.SnapshotTool{
		{Name: "spawn_worker", Description: "Start a background worker."},
		{Name: "status_page", Description: "Read the status page."},
	}); err != nil {
		t.Fatal(err)
	}
	if err := c.SetServer(catalog.Server{ID: "down", Connected: false}, []catalog.SnapshotTool{{Name: "ping"}}); err != nil {
		t.Fatal(err)
	}
	v := c.View()
	pl := v.Plan(catalog.Policy{Agent: "default", Block: []string{"mcp:slack/*", "mcp:github/delete_file"}, Focus: []string{"mcp:sentry/*"}})
	tools := func(list []*catalog.Capability) []string {
		var out []string
		for _, cp := range list {
			out = append(out, cp.ID)
		}
		return out
	}
	for _, name := range []string{"google-maps", "Google Maps", "google maps", "GOOGLE_MAPS"} {
		got, err := pl.Requested(name)
		if err != nil || len(got) != 7 || got[0].Server != "google-maps" {
			t.Errorf("Requested(%q) = %v, %v; want the 7 maps tools", name, tools(got), err)
		}
	}
	if got, err := pl.Requested("notebooklm"); err != nil || len(got) != 32 {
		t.Errorf("by the id without -mcp: %d tools, %v", len(got), err)
	}
	got, err := pl.Requested("ops")
	if err != nil || !slices.Equal(tools(got), []string{"mcp:ops/status_page"}) {
		t.Errorf("a server with a never-list tool: %v %v", tools(got), err)
	}
	got, err = pl.Requested("github")
	if err != nil || slices.Contains(tools(got), "mcp:github/delete_file") || len(got) != 44 {
		t.Errorf("github with one tool blocked: %d tools, %v", len(got), err)
	}
	if got := pl.RequestedOffline("down"); !slices.Equal(got, []string{"down"}) {
		t.Errorf("RequestedOffline(down) = %v", got)
	}
	if got := pl.RequestedOffline("google-maps"); len(got) != 0 {
		t.Errorf("RequestedOffline of a connected server = %v", got)
	}
	var listed []string
	for _, s := range pl.Services() {
		listed = append(listed, s.ID)
	}
	if !slices.Contains(listed, "down") || slices.Contains(listed, "slack") || !slices.Contains(listed, "ops") {
		t.Errorf("services: %v; want the server not connected now listed, the blocked one not", listed)
	}
	if got, err := pl.Requested("sentry"); err != nil || len(got) != 0 {
		t.Errorf("a server in focus is always offered and brings nothing more: %v %v", tools(got), err)
	}
	for _, tt := range []struct {
		name string
		code jarvisbot.Code
		says string
	}{
		{"slack", jarvisbot.EUNAVAILABLE, "none of the tools of slack"},
		{"down", jarvisbot.EUNAVAILABLE, "not connected"},
		{"spotify-deluxe", jarvisbot.ENOTFOUND, "no connected service"},
		{"", jarvisbot.EINVALID, "name the service"},
	} {
		got, err := pl.Requested(tt.name)
		if len(got) != 0 || jarvisbot.ErrorCode(err) != tt.code || err == nil || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("Requested(%q) = %v, %v; want %s saying %q", tt.name, tools(got), err, tt.code, tt.says)
		}
	}
}

// TestOnRequestC8: the servers a turn did not offer but the agent may use
// are the ones it can ask for; blocked, offline and offered ones are not.
func TestOnRequestC8(t *testing.T) {
	v := loadSnapshot(t, "catalog-seed.json").View()
	pl := v.Plan(catalog.Policy{Agent: "default"})
	var turn catalog.Turn
	pl.Turn("Which issues are still open in the website repo?", &turn)
	if got := turn.OnRequest(); !slices.Equal(got, []string{"notebooklm-mcp"}) {
		t.Errorf("on request: %v", got)
	}
	pl = v.Plan(catalog.Policy{Agent: "default", Block: []string{"mcp:notebooklm-mcp"}})
	pl.Turn("hello there", &turn)
	if got := turn.OnRequest(); !slices.Equal(got, []string{"github"}) {
		t.Errorf("on request with notebooklm blocked: %v", got)
	}
}

func TestShorten(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"two\nlines  here", 20, "two lines here"},
		{"Use when the owner asks about their schedule, free time or events", 40, "Use when the owner asks about their…"},
		{"Kalenderübersicht", 12, "Kalender…"},
	} {
		if got := catalog.Shorten(tt.in, tt.n); got != tt.want || len(got) > tt.n {
			t.Errorf("Shorten(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

// BenchmarkServices is what listing the services costs a turn's prompt on
// the 17-server catalog (the usage lines are worked out once per view).
func BenchmarkServices(b *testing.B) {
	v := loadSnapshot(b, "catalog-extended.json").View()
	pl := v.Plan(catalog.Policy{Agent: "default"})
	b.ReportAllocs()
	for b.Loop() {
		pl.Services()
	}
}

// TestServiceLineReadsPlainlyC8: a server added by hand, with no card and
// no instructions, is described by what its tools are called, as words,
// not by the gate's stems or glosses; a one-tool server by what its tool
// says it does.
func TestServiceLineReadsPlainlyC8(t *testing.T) {
	c := catalog.New()
	if err := c.SetServer(catalog.Server{ID: "gmail", Connected: true}, []catalog.SnapshotTool{
		{Name: "search_emails", Description: "Search the mailbox."},
		{Name: "sendEmail", Description: "Send an email."},
		{Name: "download_attachment", Description: "Download an attachment."},
	}); err != nil {
		t.Fatal(err)
	}
	if err := c.SetServer(catalog.Server{ID: "clock", Connected: true}, []catalog.SnapshotTool{
		{Name: "now", Description: "Tells the current time in a time zone. Defaults to UTC."},
	}); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range c.View().Plan(catalog.Policy{Agent: "default"}).Services() {
		got[s.ID] = s.Usage
	}
	if want := "Tools to download attachment, search emails, send email"; got["gmail"] != want {
		t.Errorf("gmail: %q, want %q", got["gmail"], want)
	}
	if want := "Tells the current time in a time zone."; got["clock"] != want {
		t.Errorf("clock: %q, want %q", got["clock"], want)
	}
}
