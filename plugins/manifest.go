// Package plugins reads and checks plugin folders in the open Agent Plugins
// format (P1): a plugin.json manifest, an optional mcp.json naming the MCP
// servers the plugin brings, and skills/<name>/SKILL.md folders. What only
// jarvisbot needs (display name, logo, sign-in, usage card, tier overrides)
// lives under extensions["dev.jarvisbot"], which other apps ignore.
//
// Data flows one way: Load or LoadFS reads a folder, every file goes through
// the same checks (size, UTF-8, symlinks that stay inside, strict JSON), and
// the parsers collect every problem they find as a Problem naming file and
// field. Validate returns that list for `jarvisbot plugins validate`; Load
// turns it into one EINVALID error or a Plugin with its warnings. The package
// parses no SKILL.md (the skills package does) and connects to nothing.
package plugins

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/jarvisbot/jarvisbot/catalog"
)

// The Agent Plugins 1.0.0 schema identifiers. The specification names them
// as the only accepted $schema values of the version it defines.
const (
	ManifestSchema = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"
	MCPSchema      = "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json"
)

// The fixed locations inside a plugin folder.
const (
	ManifestFile = "plugin.json"
	MCPFile      = "mcp.json"
	SkillsDir    = "skills"
	SkillFile    = "SKILL.md"
)

// MaxFileSize is the largest file the package reads. A manifest, an MCP
// configuration or a skill manual is a few KiB; anything near the limit is a
// mistake or an attack, and costs an error instead of memory.
const MaxFileSize = 1 << 20

// ExtensionID is jarvisbot's reverse-DNS namespace under "extensions".
const ExtensionID = "dev.jarvisbot"

// Manifest is plugin.json: exactly the closed set of top-level fields of
// Agent Plugins 1.0.0.
type Manifest struct {
	Schema      string   `json:"$schema"`
	Name        string   `json:"name"`
	Version     string   `json:"version,omitempty"`
	Description string   `json:"description,omitempty"`
	Author      *Author  `json:"author,omitempty"`
	Homepage    string   `json:"homepage,omitempty"`
	Repository  string   `json:"repository,omitempty"`
	License     string   `json:"license,omitempty"`
	Keywords    []string `json:"keywords,omitempty"`
	// Extensions holds each app's data by reverse-DNS namespace, kept as
	// the bytes the file had: only ExtensionID is ours to read.
	Extensions map[string]json.RawMessage `json:"extensions,omitempty"`
}

// Author is the manifest's author. The specification allows only an object
// with these three string fields (not npm's "Name <email>" string).
type Author struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
	URL   string `json:"url,omitempty"`
}

// Extension is jarvisbot's data in extensions["dev.jarvisbot"].
type Extension struct {
	DisplayName string  `json:"displayName,omitempty"`
	Logo        string  `json:"logo,omitempty"` // "./logo.svg" inside the plugin, or an https URL
	SignIn      *SignIn `json:"signIn,omitempty"`
	// Card and CardDE are the usage card's words in English and German:
	// what an owner says when they want this service (C5).
	Card   []string `json:"card,omitempty"`
	CardDE []string `json:"cardDE,omitempty"`
	// Tiers maps a tool name or capability id to its tier (safe, monitor,
	// ask), normalised to lower case.
	Tiers map[string]string `json:"tiers,omitempty"`
	// Builtin marks a plugin whose tools are native to jarvisbot: it brings
	// no MCP server.
	Builtin bool `json:"builtin,omitempty"`
}

// SignIn says how the owner signs in to the plugin's service.
type SignIn struct {
	Method string   `json:"method"`
	Scopes []string `json:"scopes,omitempty"`
}

// The sign-in methods.
const (
	SignInOAuth  = "oauth"
	SignInAPIKey = "api-key"
	SignInNone   = "none"
)

// manifestFields are the top-level fields Agent Plugins 1.0.0 permits.
var manifestFields = []string{"$schema", "name", "version", "description", "author", "homepage", "repository", "license", "keywords", "extensions"}

// Limits on our extension, so a usage card stays a card.
const (
	maxDisplayName = 64
	maxCardPhrases = 200
	maxPhraseLen   = 200
)

// ValidName reports whether name is a valid plugin name: 1–64 characters of
// a-z, 0-9, '-' and '.', a letter or digit at both ends, no "--" or "..".
func ValidName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("is empty: a plugin name is 1–64 of a-z, 0-9, '-' and '.', such as \"github\"")
	case len(name) > 64:
		return fmt.Errorf("%.20q... is longer than 64 characters", name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
			if unicode.IsUpper(r) {
				return fmt.Errorf("%q has an upper-case letter; plugin names are lower case", name)
			}
			return fmt.Errorf("%q may only hold a-z, 0-9, '-' and '.'", name)
		}
	}
	switch {
	case !isAlnum(name[0]) || !isAlnum(name[len(name)-1]):
		return fmt.Errorf("%q must start and end with a letter or digit", name)
	case strings.Contains(name, "--"):
		return fmt.Errorf("%q has \"--\"; use single hyphens", name)
	case strings.Contains(name, ".."):
		return fmt.Errorf("%q has \"..\"; use single periods", name)
	}
	return nil
}

func isAlnum(b byte) bool { return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' }

// ParseManifest parses plugin.json. file names the file in every Problem.
// It returns what it could read even when there are problems, so that a
// validator can go on checking the rest of the folder.
func ParseManifest(file string, data []byte) (Manifest, Extension, []Problem) {
	c := &checker{file: file}
	m, ext := c.manifest(data)
	return m, ext, c.problems
}

func (c *checker) manifest(data []byte) (m Manifest, ext Extension) {
	raw, ok := c.document(data)
	if !ok {
		return m, ext
	}
	members, ok := c.object("", raw)
	if !ok {
		return m, ext
	}
	seen := map[string]bool{}
	for _, mb := range members {
		seen[mb.key] = true
		switch mb.key {
		case "$schema":
			m.Schema, _ = c.str(mb.key, mb.raw)
		case "name":
			if s, ok := c.str(mb.key, mb.raw); ok {
				m.Name = s
				if err := ValidName(s); err != nil {
					c.fail("name", "%v", err)
				}
			}
		case "version":
			m.Version, _ = c.str(mb.key, mb.raw)
		case "description":
			m.Description, _ = c.str(mb.key, mb.raw)
		case "homepage":
			m.Homepage, _ = c.str(mb.key, mb.raw)
		case "repository":
			m.Repository, _ = c.str(mb.key, mb.raw)
		case "license":
			m.License, _ = c.str(mb.key, mb.raw)
		case "keywords":
			m.Keywords, _ = c.strs(mb.key, mb.raw)
		case "author":
			m.Author = c.author(mb.raw)
		case "extensions":
			m.Extensions, ext = c.extensions(mb.raw)
		default:
			hint := "put app-specific data under extensions"
			if mb.key == "displayName" {
				hint = "jarvisbot reads the display name from extensions[\"" + ExtensionID + "\"].displayName"
			}
			c.warn(field("", mb.key), "unknown field, ignored: Agent Plugins 1.0.0 allows only %s; %s", strings.Join(manifestFields, ", "), hint)
		}
	}
	switch {
	case !seen["$schema"]:
		c.fail("$schema", "missing: want %q", ManifestSchema)
	case m.Schema != "" && m.Schema != ManifestSchema:
		c.fail("$schema", "%.80q is not a supported Agent Plugins version: want %q", m.Schema, ManifestSchema)
	case m.Schema == "" && c.ok("$schema"):
		c.fail("$schema", "is empty: want %q", ManifestSchema)
	}
	if !seen["name"] {
		c.fail("name", "missing: every plugin needs a name such as \"github\"")
	}
	return m, ext
}

func (c *checker) author(raw json.RawMessage) *Author {
	if kind(raw) == "a string" {
		c.fail("author", `must be an object {"name": ..., "email": ..., "url": ...}, not a string`)
		return nil
	}
	members, ok := c.object("author", raw)
	if !ok {
		return nil
	}
	a := &Author{}
	for _, mb := range members {
		f := field("author", mb.key)
		switch mb.key {
		case "name":
			a.Name, _ = c.str(f, mb.raw)
		case "email":
			a.Email, _ = c.str(f, mb.raw)
		case "url":
			a.URL, _ = c.str(f, mb.raw)
		default:
			c.fail(f, "unknown field: an author has only name, email and url")
		}
	}
	return a
}

func (c *checker) extensions(raw json.RawMessage) (map[string]json.RawMessage, Extension) {
	var ext Extension
	if kind(raw) != "an object" {
		c.warn("extensions", "must be an object keyed by reverse-DNS namespace, not %s; ignored", kind(raw))
		return nil, ext
	}
	members, ok := c.object("extensions", raw)
	if !ok {
		return nil, ext
	}
	all := make(map[string]json.RawMessage, len(members))
	for _, mb := range members {
		f := field("extensions", mb.key)
		if k := kind(mb.raw); k != "an object" {
			c.fail(f, "must be an object, not %s", k)
			continue
		}
		all[mb.key] = mb.raw
		if mb.key == ExtensionID {
			ext = c.extension(f, mb.raw)
		} else if !reverseDNS(mb.key) {
			c.warn(f, "is not a reverse-DNS namespace such as \"com.example.app\"")
		}
	}
	return all, ext
}

// reverseDNS reports whether s looks like "com.example.app".
func reverseDNS(s string) bool {
	labels := strings.Split(s, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			if b := l[i] | 0x20; !(b >= 'a' && b <= 'z' || l[i] >= '0' && l[i] <= '9' || l[i] == '-') {
				return false
			}
		}
	}
	return true
}

func (c *checker) extension(where string, raw json.RawMessage) Extension {
	var ext Extension
	members, _ := c.object(where, raw)
	for _, mb := range members {
		f := field(where, mb.key)
		switch mb.key {
		case "displayName":
			if s, ok := c.str(f, mb.raw); ok {
				ext.DisplayName = s
				switch {
				case strings.TrimSpace(s) == "":
					c.fail(f, "is empty: leave it out to show the plugin's name")
				case len([]rune(s)) > maxDisplayName:
					c.fail(f, "is longer than %d characters", maxDisplayName)
				case hasControl(s):
					c.fail(f, "holds a control character")
				}
			}
		case "logo":
			if s, ok := c.str(f, mb.raw); ok {
				ext.Logo = s
				c.logo(f, s)
			}
		case "signIn":
			ext.SignIn = c.signIn(f, mb.raw)
		case "card":
			ext.Card = c.card(f, mb.raw)
		case "cardDE":
			ext.CardDE = c.card(f, mb.raw)
		case "tiers":
			ext.Tiers = c.tiers(f, mb.raw)
		case "builtin":
			ext.Builtin, _ = c.boolean(f, mb.raw)
		default:
			c.fail(f, "unknown field: jarvisbot's extension has displayName, logo, signIn, card, cardDE, tiers and builtin")
		}
	}
	return ext
}

// logo checks the form of a logo reference; the loader checks that a
// plugin-relative logo exists.
func (c *checker) logo(f, s string) {
	if strings.HasPrefix(s, "./") {
		if !insideRoot(s) {
			c.fail(f, "%.80q leads out of the plugin folder", s)
			return
		}
		switch strings.ToLower(s[strings.LastIndexByte(s, '.')+1:]) {
		case "svg", "png", "jpg", "jpeg", "webp":
		default:
			c.fail(f, "%.80q is not an SVG, PNG, JPEG or WebP image", s)
		}
		return
	}
	if err := httpsURL(s, false); err != nil {
		c.fail(f, "must be a path inside the plugin such as \"./logo.svg\" or an https URL: %v", err)
	}
}

func (c *checker) signIn(f string, raw json.RawMessage) *SignIn {
	members, ok := c.object(f, raw)
	if !ok {
		return nil
	}
	s := &SignIn{}
	hasMethod := false
	for _, mb := range members {
		g := field(f, mb.key)
		switch mb.key {
		case "method":
			hasMethod = true
			if m, ok := c.str(g, mb.raw); ok {
				s.Method = m
				switch m {
				case SignInOAuth, SignInAPIKey, SignInNone:
				default:
					c.fail(g, "unknown sign-in method %.40q: use oauth, api-key or none", m)
				}
			}
		case "scopes":
			if scopes, ok := c.strs(g, mb.raw); ok {
				s.Scopes = scopes
				for i, sc := range scopes {
					if sc == "" || strings.ContainsFunc(sc, unicode.IsSpace) || hasControl(sc) {
						c.fail(fmt.Sprintf("%s[%d]", g, i), "a scope is one non-empty word without spaces")
					}
				}
			}
		default:
			c.fail(g, "unknown field: a sign-in has method and scopes")
		}
	}
	switch {
	case !hasMethod:
		c.fail(field(f, "method"), "missing: use oauth, api-key or none")
	case len(s.Scopes) > 0 && s.Method != SignInOAuth && c.ok(field(f, "method")):
		c.fail(field(f, "scopes"), "only an oauth sign-in has scopes")
	}
	return s
}

func (c *checker) card(f string, raw json.RawMessage) []string {
	words, ok := c.strs(f, raw)
	if !ok {
		return nil
	}
	if len(words) > maxCardPhrases {
		c.fail(f, "has %d phrases; a usage card holds at most %d", len(words), maxCardPhrases)
	}
	for i, w := range words {
		g := fmt.Sprintf("%s[%d]", f, i)
		switch {
		case strings.TrimSpace(w) == "":
			c.fail(g, "is empty")
		case len(w) > maxPhraseLen:
			c.fail(g, "is longer than %d bytes; a card phrase is a few words", maxPhraseLen)
		case hasControl(w):
			c.fail(g, "holds a control character")
		}
	}
	return words
}

func (c *checker) tiers(f string, raw json.RawMessage) map[string]string {
	members, ok := c.object(f, raw)
	if !ok {
		return nil
	}
	tiers := make(map[string]string, len(members))
	for _, mb := range members {
		g := field(f, mb.key)
		switch {
		case strings.Contains(mb.key, ":"):
			if _, _, err := catalog.ParseID(mb.key); err != nil {
				c.fail(g, "%v", err)
				continue
			}
		case mb.key == "" || len(mb.key) > 128 || hasControl(mb.key) || strings.ContainsFunc(mb.key, unicode.IsSpace):
			c.fail(g, "is not a tool name or a capability id such as mcp:github/create_issue")
			continue
		}
		s, ok := c.str(g, mb.raw)
		if !ok {
			continue
		}
		t, err := catalog.ParseTier(s)
		if err != nil {
			c.fail(g, "%v", err)
			continue
		}
		tiers[mb.key] = string(t)
	}
	return tiers
}

func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) })
}
