package web

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/jarvisbot/jarvisbot"
)

// serverBook is an in-test MCPs: servers by name, the adds it was given,
// the cards saved.
type serverBook struct {
	mu    sync.Mutex
	rows  []MCPRow
	adds  []MCPAdd
	cards map[string][]string
}

func newServerBook() *serverBook {
	return &serverBook{cards: map[string][]string{}, rows: []MCPRow{
		{Name: "box", Transport: "stdio", Target: "mcptestserver -name box", On: true, Answer: "up", Up: true, Tools: 9},
		{Name: "far", Transport: "streamable-http", Target: "https://far.example/mcp", On: true, Answer: "down: connection refused"},
	}}
}

func (b *serverBook) List(context.Context) ([]MCPRow, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]MCPRow(nil), b.rows...), nil
}

func (b *serverBook) Show(_ context.Context, name string) (MCPDetail, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range b.rows {
		if r.Name == name {
			return MCPDetail{MCPRow: r, Settings: "box: on, stdio\ncommand: mcptestserver", Card: b.cards[name], Owned: len(b.cards[name]) > 0,
				Tools: []MCPTool{{ID: "mcp:box/echo", Tier: "monitor"}, {ID: "mcp:box/delete_everything", Tier: "ask"}},
				Words: []MCPWord{{Word: "echo", Kind: "tool word", Source: "echo", Weight: 2}}}, nil
		}
	}
	return MCPDetail{}, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no MCP server named %s (see jarvisbot mcp list)", name)
}

func (b *serverBook) Add(_ context.Context, in MCPAdd) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.adds = append(b.adds, in)
	if strings.Contains(in.Env, "sk-") {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "--env %s holds what looks like a secret", "KEY")
	}
	return "Added " + in.Name + " (test, stdio): 9 tools, switched on.", nil
}

func (b *serverBook) Switch(_ context.Context, name string, on bool) (string, error) {
	return name + " is " + map[bool]string{true: "on", false: "off"}[on] + ".", nil
}

func (b *serverBook) Remove(_ context.Context, name string) (string, error) {
	return "Removed MCP server " + name + ".", nil
}

func (b *serverBook) SaveCard(_ context.Context, name string, words []string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cards[name] = words
	return "Saved.", nil
}

func (b *serverBook) Forget(_ context.Context, name, word string) (string, error) {
	return "Forgot " + word + " of " + name + ".", nil
}

// TestMCPsTabListsAndAddsM1: servers with their switch, what the host
// says of them and their tool count; the add form's fields reach the
// backend as typed, its refusal is shown in the command's words, and a
// server added leads to its page.
func TestMCPsTabListsAndAddsM1(t *testing.T) {
	book := newServerBook()
	d, sess, csrf := dashboardSignedIn(t, Options{MCPs: book})
	body := d.page(t, "/mcps", sess)
	wantIn(t, "the list", body, `id="mcp-switch-box"`, `id="mcp-remove-far"`, "down: connection refused", ">9<", `id="mcp-add"`,
		`name="name"`, `name="command"`, `name="url"`, `name="env"`, `name="headers"`, `name="csrf" value="`+csrf+`"`)
	add := url.Values{"csrf": {csrf}, "name": {"box2"}, "command": {"mcptestserver -name 'box two'"}, "env": {"A=${A}\r\nB=${B}\r\n"}, "headers": {""}, "timeout": {"5s"}, "trusted": {"true"}}
	res, _ := d.postWith(t, "/mcps", formType, encoded(add), sess, nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/mcps/box2" || !strings.Contains(noteOf(res), "Added box2") {
		t.Fatalf("add: %s to %q, note %q", res.Status, res.Header.Get("Location"), noteOf(res))
	}
	want := MCPAdd{Name: "box2", Command: "mcptestserver -name 'box two'", Env: "A=${A}\r\nB=${B}\r\n", Timeout: "5s", Trusted: true}
	if !reflect.DeepEqual(book.adds[0], want) {
		t.Errorf("the backend got %+v, want %+v", book.adds[0], want)
	}
	add.Set("env", "KEY=sk-live")
	res, body = d.postWith(t, "/mcps", formType, encoded(add), sess, nil)
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(html.UnescapeString(body), "--env KEY holds what looks like a secret") {
		t.Errorf("a refused add: %s\n%s", res.Status, body)
	}
}

// TestMCPPageToolsAndCardC5: a server's page lists its tools with their
// tiers and its words; the card form saves one word or phrase a line.
func TestMCPPageToolsAndCardC5(t *testing.T) {
	book := newServerBook()
	d, sess, csrf := dashboardSignedIn(t, Options{MCPs: book})
	body := d.page(t, "/mcps/box", sess)
	wantIn(t, "the page", body, "mcp:box/delete_everything", `class="tier-ask"`, `id="mcp-card"`, `id="mcp-switch-box"`, `name="back" value="/mcps/box"`, "tool word")
	res, _ := d.postWith(t, "/mcps/box/card", formType, encoded(url.Values{"csrf": {csrf}, "card": {"parcel\r\n  Paket \r\n\r\ndelivery, shipment"}}), sess, nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/mcps/box" {
		t.Fatalf("save card: %s to %q", res.Status, res.Header.Get("Location"))
	}
	if got := book.cards["box"]; !reflect.DeepEqual(got, []string{"parcel", "Paket", "delivery", "shipment"}) {
		t.Errorf("card saved as %q", got)
	}
	res, _ = d.postWith(t, "/mcps/box/switch", formType, encoded(url.Values{"csrf": {csrf}, "on": {"false"}, "back": {"/mcps/box"}}), sess, nil)
	if res.Header.Get("Location") != "/mcps/box" || noteOf(res) != "box is off." {
		t.Errorf("switch from its page: to %q, note %q", res.Header.Get("Location"), noteOf(res))
	}
	res, _ = d.postWith(t, "/mcps/box/switch", formType, encoded(url.Values{"csrf": {csrf}, "on": {"true"}, "back": {"https://elsewhere.example/"}}), sess, nil)
	if res.Header.Get("Location") != "/mcps" {
		t.Errorf("a switch sent back elsewhere: %q", res.Header.Get("Location"))
	}
	if res, body := d.get(t, "/mcps/nope", sess); res.StatusCode != http.StatusNotFound || !strings.Contains(body, "see jarvisbot mcp list") {
		t.Errorf("unknown server: %s", res.Status)
	}
}
