// Package plugins reads and checks plugin folders in the open Agent Plugins
// format (P1): a plugin.json manifest, an optional mcp.json naming the MCP
// servers the plugin brings, and skills/<name>/SKILL.md folders. What only
// jarvisbot needs (display name, logo, sign-in, usage card, tier overrides)
// lives under extensions["dev.jarvisbot"], which other apps ignore.
//
// Data flows one way: Load or LoadFS reads a folder, every file goes through
// the same checks (size, UTF-8, symlinks that stay inside, strict JSON), the
// JSON files through their JSON Schema (plugin.schema.json, mcp.schema.json:
// types, known fields, closed sets, lengths), then through the checks a
// schema cannot make (names, paths that stay inside, addresses, credentials),
// and the parsers collect every problem they find as a Problem naming file
// and field. Validate returns that list for `jarvisbot plugins validate`; Load
// turns it into one EINVALID error or a Plugin with its warnings. The package
// parses no SKILL.md (the skills package does) and connects to nothing.
package plugins

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

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
	// Channel marks a plugin that is one of jarvisbot's chat channels
	// (Telegram, Discord): the owner talks to jarvisbot through it; it
	// brings no tools and no MCP server.
	Channel bool `json:"channel,omitempty"`
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
	m, ext := c.manifest(data, newSchemas())
	return m, ext, c.problems
}

// manifest checks plugin.json against its schema (plugin.schema.json),
// then what a schema cannot say: the name rules, logo paths, tiers and
// capability ids (the catalog's rules), a sign-in's scopes that only OAuth
// has, and namespaces that are not reverse-DNS (a warning).
func (c *checker) manifest(data []byte, sch *schemas) (m Manifest, ext Extension) {
	raw, ok := c.document(data)
	if !ok {
		return m, ext
	}
	s, err := sch.manifest()
	if err != nil {
		c.fail("", "cannot be checked: %v", err)
		return m, ext
	}
	// Both checks belong to the schemas': what ships is checked by its
	// tests (shippedSchemas).
	if s != nil {
		order := c.duplicates(raw)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			c.fail("", "is not valid JSON: %v", err)
			return m, ext
		}
		c.schemaCheck(s, doc, order, manifestLeniency)
	}

	top := members(raw)
	if top == nil {
		return m, ext
	}
	// Only the fields the specification names are read, by their exact
	// names (encoding/json would also take "Name" for "name"); what does
	// not fit its type is left empty and was reported.
	if s != nil { // a shipped plugin's fields are checked by its tests
		for k := range top {
			if _, known := s.Properties[k]; !known {
				delete(top, k)
			}
		}
	}
	for k, v := range top {
		var dst any
		switch k {
		case "$schema":
			dst = &m.Schema
		case "name":
			dst = &m.Name
		case "version":
			dst = &m.Version
		case "description":
			dst = &m.Description
		case "homepage":
			dst = &m.Homepage
		case "repository":
			dst = &m.Repository
		case "license":
			dst = &m.License
		case "keywords":
			dst = &m.Keywords
		case "author":
			if kindOf(v) == "an object" {
				m.Author = &Author{}
				dst = m.Author
			}
		case "extensions":
			m.Extensions, ext = c.extensions(v)
		}
		if dst != nil {
			_ = json.Unmarshal(v, dst) // a wrong type was reported by the schema
		}
	}
	if _, ok := top["name"]; ok && c.ok("name") {
		if err := ValidName(m.Name); err != nil {
			c.fail("name", "%v", err)
		}
	}
	return m, ext
}

// manifestLeniency: Agent Plugins lets an app ignore top-level fields it
// does not know, and jarvisbot ignores an extensions value that is not an
// object; both are warnings.
func manifestLeniency(at []string, k jsonschema.ErrorKind, sch *jsonschema.Schema, f string) (string, bool) {
	switch k := k.(type) {
	case *kind.AdditionalProperties:
		if len(at) == 0 {
			hint := "put app-specific data under extensions"
			if f == "displayName" {
				hint = "jarvisbot reads the display name from extensions[\"" + ExtensionID + "\"].displayName"
			}
			return fmt.Sprintf("unknown field, ignored: Agent Plugins 1.0.0 allows only %s; %s", strings.Join(sortedKeys(sch.Properties), ", "), hint), true
		}
	case *kind.Type:
		if slices.Equal(at, []string{"extensions"}) {
			return fmt.Sprintf("must be an object keyed by reverse-DNS namespace, not %s; ignored", article(k.Got)), true
		}
	}
	return "", false
}

// members splits a JSON object into its members; nil when raw is not one.
func members(raw json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if kindOf(raw) != "an object" || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// extensions keeps each namespace that holds an object and reads ours.
func (c *checker) extensions(raw json.RawMessage) (map[string]json.RawMessage, Extension) {
	var ext Extension
	all := members(raw)
	if all == nil {
		return nil, ext
	}
	for _, ns := range sortedKeys(all) {
		switch {
		case kindOf(all[ns]) != "an object":
			delete(all, ns)
		case ns == ExtensionID:
			ext = c.extension(field("extensions", ns), all[ns])
		case !reverseDNS(ns):
			c.warn(field("extensions", ns), "is not a reverse-DNS namespace such as \"com.example.app\"")
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

// extension reads extensions["dev.jarvisbot"]; its structure was checked
// by the schema.
func (c *checker) extension(where string, raw json.RawMessage) Extension {
	var ext Extension
	for k, v := range members(raw) {
		f := field(where, k)
		switch k {
		case "displayName":
			_ = json.Unmarshal(v, &ext.DisplayName)
		case "logo":
			if json.Unmarshal(v, &ext.Logo) == nil && c.ok(f) {
				c.logo(f, ext.Logo)
			}
		case "signIn":
			if kindOf(v) == "an object" {
				ext.SignIn = &SignIn{}
				_ = json.Unmarshal(v, ext.SignIn)
				sf := field(f, "scopes")
				if len(ext.SignIn.Scopes) > 0 && ext.SignIn.Method != SignInOAuth && c.ok(field(f, "method")) && c.ok(sf) {
					c.fail(sf, "only an oauth sign-in has scopes")
				}
			}
		case "card":
			_ = json.Unmarshal(v, &ext.Card)
		case "cardDE":
			_ = json.Unmarshal(v, &ext.CardDE)
		case "tiers":
			ext.Tiers = c.tiers(f, v)
		case "builtin":
			_ = json.Unmarshal(v, &ext.Builtin)
		case "channel":
			_ = json.Unmarshal(v, &ext.Channel)
		}
	}
	return ext
}

// tiers checks what the catalog decides: a key is a tool name or a
// capability id, a value a tier.
func (c *checker) tiers(f string, raw json.RawMessage) map[string]string {
	all := members(raw)
	if all == nil {
		return nil
	}
	tiers := make(map[string]string, len(all))
	for _, key := range sortedKeys(all) {
		g := field(f, key)
		switch {
		case strings.Contains(key, ":"):
			if _, _, err := catalog.ParseID(key); err != nil {
				c.fail(g, "%v", err)
				continue
			}
		case key == "" || len(key) > 128 || hasControl(key) || strings.ContainsFunc(key, unicode.IsSpace):
			c.fail(g, "is not a tool name or a capability id such as mcp:github/create_issue")
			continue
		}
		var s string
		if json.Unmarshal(all[key], &s) != nil {
			continue // reported by the schema
		}
		t, err := catalog.ParseTier(s)
		if err != nil {
			c.fail(g, "%v", err)
			continue
		}
		tiers[key] = string(t)
	}
	return tiers
}

func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) })
}
