// Package browser is builtin:browser (SPEC P6, C1, C2): the tool that
// reads web pages for the model. One call opens an address and answers
// with the page's title, its readable text (Readability's main content)
// and a numbered list of its links; the next can follow a link by its
// number or find words in that page, which the browser remembers per chat.
//
// Data flows: the model's call → Run → the engine (Go's HTTP client, or
// Chromium when the owner set browser.engine: chromium and a page needs
// JavaScript) → page (readable text, links) → the chat's memory and the
// text the model reads. Every connection either engine makes goes through
// one guard (guard.go), which lets the browser reach the public internet
// only, plus what the owner allowed.
package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/native"
)

// ID is the tool's capability id.
const ID = "builtin:browser"

// Defaults for the zero fields of Options.
const (
	DefaultUserAgent    = "jarvisbot/1 (+personal assistant; reads pages for its owner)"
	DefaultMaxBytes     = 2 << 20
	DefaultTimeout      = 20 * time.Second
	DefaultMaxRedirects = 5
)

// Engines.
const (
	EngineGo       = "go"
	EngineChromium = "chromium"
)

// Options configure the browser; zero fields take the defaults above.
type Options struct {
	// Engine is "" or "go" (Go's HTTP client, needs nothing else) or
	// "chromium" (renders pages with a headless Chromium, for pages that
	// need JavaScript).
	Engine string
	// Allow lists the owner's own hosts the browser may reach although
	// they are not public: host names ("nas.home.arpa", "*.home.arpa"),
	// addresses and CIDR ranges ("192.168.1.0/24").
	Allow        []string
	UserAgent    string
	MaxBytes     int64         // most bytes of a page read
	Timeout      time.Duration // for one call, connection to last byte (and rendering)
	MaxRedirects int
	// ChromiumPath is the Chromium program; "" looks for chromium,
	// chromium-browser, google-chrome and headless-shell on PATH.
	ChromiumPath string
}

// Validate reports an engine or an allow-list entry the browser cannot
// use, for the config's checks; New takes any Options and reports the same
// error on each call instead.
func (o Options) Validate() error {
	switch o.Engine {
	case "", EngineGo, EngineChromium:
	default:
		return fmt.Errorf("browser.engine %q is not an engine: use go (the default) or chromium", o.Engine)
	}
	_, err := parseAllow(o.Allow)
	return err
}

func (o Options) withDefaults() Options {
	if o.Engine == "" {
		o.Engine = EngineGo
	}
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxRedirects <= 0 {
		o.MaxRedirects = DefaultMaxRedirects
	}
	return o
}

// Browser is builtin:browser. It is safe for concurrent use: chats run in
// parallel, and each has its own last page.
type Browser struct {
	opts    Options
	confErr error // a bad Options, reported on every call
	guard   *guard
	client  *http.Client
	memory  *memory
	// renders bounds the Chromiums running at once: each is a few hundred
	// MB, and chats open pages in parallel.
	renders chan struct{}
}

// maxRenders is how many pages Chromium renders at once.
const maxRenders = 2

// New returns a browser with o's settings.
func New(o Options) *Browser {
	o = o.withDefaults()
	allow, err := parseAllow(o.Allow)
	if err == nil {
		err = o.Validate()
	}
	g := newGuard(allow)
	return &Browser{
		opts:    o,
		confErr: err,
		guard:   g,
		client:  newClient(g, o),
		memory:  newMemory(maxChats),
		renders: make(chan struct{}, maxRenders),
	}
}

// schema is the tool's input schema, compact and constant so that what it
// costs to offer never varies.
const schema = `{"type":"object",` +
	`"properties":{` +
	`"action":{"type":"string","enum":["open","follow","find"],"description":"open a web address; follow a link of the last page opened (by its number, or an address); find words in the last page"},` +
	`"url":{"type":"string","description":"the address (http or https); for open, or for follow instead of a link number"},` +
	`"link":{"type":"integer","minimum":1,"description":"a link's number in the last page's list; for follow"},` +
	`"query":{"type":"string","description":"words to look for, case and accents ignored; for find"},` +
	`"limit":{"type":"integer","minimum":1,"maximum":100,"description":"most links to list for open and follow (default 20), or passages for find (default 5)"}},` +
	`"required":["action"],"additionalProperties":false}`

// Capability describes the browser as a catalog entry. Every action only
// reads public pages, so all are safe; what it may reach is the guard's
// business, not the tier's.
func (b *Browser) Capability() catalog.Capability {
	return catalog.Capability{
		ID:     ID,
		Kind:   catalog.KindBuiltin,
		Source: "builtin",
		Name:   "browser",
		Description: "Reads web pages: open an address to get its title, readable text and numbered links; " +
			"follow a link by its number (or an address) from the last page opened; find words in that page " +
			"to see the passages around them. Public web addresses only.",
		InputSchema: json.RawMessage(schema),
		Tier:        catalog.TierSafe,
		ActionTiers: map[string]catalog.Tier{
			"open":   catalog.TierSafe,
			"follow": catalog.TierSafe,
			"find":   catalog.TierSafe,
		},
		Connected: true,
	}
}

type callArgs struct {
	Action string `json:"action"`
	URL    string `json:"url"`
	Link   int    `json:"link"`
	Query  string `json:"query"`
	Limit  int    `json:"limit"`
}

// Limits of the limit argument.
const (
	defaultLinks    = 20
	maxLinks        = 100
	defaultPassages = 5
	maxPassages     = 20
)

// Run runs one call of builtin:browser for the agent runtime. Errors are
// for the model: EINVALID for arguments it can correct, EFORBIDDEN for an
// address the browser may not reach, EUNAVAILABLE when the site cannot be
// reached in time.
func (b *Browser) Run(ctx context.Context, c catalog.Call) (catalog.Output, error) {
	if b.confErr != nil {
		return catalog.Output{}, jarvisbot.Errorf(jarvisbot.EINVALID, "the browser is not configured right: %w; fix it in the config", b.confErr)
	}
	var a callArgs
	if err := native.Decode(c.Args, &a); err != nil {
		return catalog.Output{}, err
	}
	key := c.Chat
	switch strings.ToLower(strings.TrimSpace(a.Action)) {
	case "open":
		if strings.TrimSpace(a.URL) == "" {
			return catalog.Output{}, native.Need("url")
		}
		u, err := parseURL(a.URL, nil)
		if err != nil {
			return catalog.Output{}, err
		}
		return b.open(ctx, key, u, native.Limit(a.Limit, defaultLinks, maxLinks))
	case "follow":
		last := b.memory.get(key)
		var u *url.URL
		switch {
		case a.Link > 0:
			if last == nil {
				return catalog.Output{}, jarvisbot.Errorf(jarvisbot.EINVALID, "no page is open in this chat: open an address first, then follow its links by number")
			}
			if a.Link > len(last.links) {
				return catalog.Output{}, jarvisbot.Errorf(jarvisbot.EINVALID, "link %d is not on the last page (%s), which has %d links", a.Link, clipURL(last.url), len(last.links))
			}
			var err error
			if u, err = url.Parse(last.links[a.Link-1].url); err != nil {
				return catalog.Output{}, jarvisbot.Errorf(jarvisbot.EINVALID, "link %d has an address the browser cannot read: %w", a.Link, err)
			}
		case strings.TrimSpace(a.URL) != "":
			var base *url.URL
			if last != nil {
				base, _ = url.Parse(last.url)
			}
			var err error
			if u, err = parseURL(a.URL, base); err != nil {
				return catalog.Output{}, err
			}
		default:
			return catalog.Output{}, jarvisbot.Errorf(jarvisbot.EINVALID, `follow needs "link", a number from the last page's list, or "url"`)
		}
		return b.open(ctx, key, u, native.Limit(a.Limit, defaultLinks, maxLinks))
	case "find":
		if strings.TrimSpace(a.Query) == "" {
			return catalog.Output{}, native.Need("query")
		}
		last := b.memory.get(key)
		if last == nil {
			return catalog.Output{}, jarvisbot.Errorf(jarvisbot.EINVALID, "no page is open in this chat: open an address first, then find words in it")
		}
		if last.kind != "" {
			return catalog.Output{Text: fmt.Sprintf("the last page, %s, is %s: it has no text to search", clipURL(last.url), last.kind)}, nil
		}
		return catalog.Output{Text: last.find(a.Query, native.Limit(a.Limit, defaultPassages, maxPassages))}, nil
	case "":
		return catalog.Output{}, jarvisbot.Errorf(jarvisbot.EINVALID, `missing field "action": one of open, follow, find`)
	}
	return catalog.Output{}, jarvisbot.Errorf(jarvisbot.EINVALID, "unknown action %q: use open, follow or find", a.Action)
}

// open fetches u with the configured engine under the time cap, remembers
// the page for the chat and shows it.
func (b *Browser) open(ctx context.Context, key string, u *url.URL, showLinks int) (catalog.Output, error) {
	if err := b.guard.checkURL(u); err != nil {
		return catalog.Output{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, b.opts.Timeout)
	defer cancel()
	var (
		r   *response
		err error
	)
	if b.opts.Engine == EngineChromium {
		r, err = b.render(ctx, u)
	} else {
		r, err = b.get(ctx, u)
	}
	if err != nil {
		return catalog.Output{}, err
	}
	p := newPage(r, b.opts.MaxBytes)
	b.memory.put(key, p)
	return catalog.Output{Text: p.render(showLinks)}, nil
}

// parseURL reads the model's address: relative to base when there is one
// (follow), and "example.org/page" as https, the way a person types it.
func parseURL(raw string, base *url.URL) (*url.URL, error) {
	s := strings.TrimSpace(raw)
	u, err := url.Parse(s)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "that is not a web address: %w", err)
	}
	switch {
	case u.Scheme != "":
	case base != nil:
		u = base.ResolveReference(u)
	case !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "."):
		if v, err := url.Parse("https://" + s); err == nil && v.Host != "" {
			u = v
		}
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

// maxChats bounds how many chats' last pages are kept; the one used
// longest ago goes first.
const maxChats = 32

// memory is the last page opened in each chat.
type memory struct {
	mu    sync.Mutex
	most  int
	tick  uint64
	pages map[string]*kept
}

type kept struct {
	p    *page
	used uint64
}

func newMemory(most int) *memory {
	return &memory{most: most, pages: map[string]*kept{}}
}

func (m *memory) get(chat string) *page {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := m.pages[chat]
	if k == nil {
		return nil
	}
	m.tick++
	k.used = m.tick
	return k.p
}

func (m *memory) put(chat string, p *page) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tick++
	if _, ok := m.pages[chat]; !ok && len(m.pages) >= m.most {
		oldest, at := "", m.tick
		for c, k := range m.pages {
			if k.used < at {
				oldest, at = c, k.used
			}
		}
		delete(m.pages, oldest)
	}
	m.pages[chat] = &kept{p: p, used: m.tick}
}
