package plugins

import (
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/jarvisbot/jarvisbot"
)

// TestSchemasNameEveryFieldP1: plugin.schema.json and mcp.schema.json
// compile, and every object they describe has exactly the fields of the
// Go type it is read into, so that the schema and the code cannot drift.
func TestSchemasNameEveryFieldP1(t *testing.T) {
	sch := newSchemas()
	manifest, err := sch.manifest()
	if err != nil {
		t.Fatal(err)
	}
	mcp, err := sch.mcp()
	if err != nil {
		t.Fatal(err)
	}
	ext := deref(deref(manifest.Properties["extensions"]).Properties[ExtensionID])
	for _, tc := range []struct {
		name   string
		schema *jsonschema.Schema
		typ    any
	}{
		{"plugin.json", manifest, Manifest{}},
		{"author", deref(manifest.Properties["author"]), Author{}},
		{ExtensionID, ext, Extension{}},
		{"signIn", deref(ext.Properties["signIn"]), SignIn{}},
		{"mcp.json", mcp, MCPConfig{}},
		{"server", deref(mcp.Properties["mcpServers"].AdditionalProperties.(*jsonschema.Schema)), MCPServer{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.schema == nil {
				t.Fatal("the schema does not describe it")
			}
			var tags []string
			rt := reflect.TypeOf(tc.typ)
			for i := range rt.NumField() {
				if name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
					tags = append(tags, name)
				}
			}
			sort.Strings(tags)
			if props := sortedKeys(tc.schema.Properties); !slices.Equal(props, tags) {
				t.Errorf("the schema has %v, the Go type %v", props, tags)
			}
		})
	}
}

// TestSchemasCompileOnlyWhenNeeded: a plugin without mcp.json never
// compiles mcp.schema.json, and one load compiles each schema once however
// many folders it reads.
func TestSchemasCompileOnlyWhenNeeded(t *testing.T) {
	compiled := map[string]int{}
	counting := func(name string) func() (*jsonschema.Schema, error) {
		return sync.OnceValues(func() (*jsonschema.Schema, error) { compiled[name]++; return compileSchema(name) })
	}
	sch := &schemas{manifest: counting(manifestSchemaFile), mcp: counting(mcpSchemaFile)}
	files := fullFiles()
	delete(files, MCPFile)
	dir := pluginDir(t, files)
	fsys := os.DirFS(dir)
	for range 3 {
		if _, err := loadFS(fsys, ".", sch); err != nil {
			t.Fatal(err)
		}
	}
	if compiled[manifestSchemaFile] != 1 || compiled[mcpSchemaFile] != 0 {
		t.Errorf("compiled %v; want the manifest's schema once and the MCP one never", compiled)
	}
}

// TestSchemaMessagesNameTheRule: failures found by the schema read as the
// hand-written checks did, with the schema's own words: what is allowed,
// what is missing, and the advice from the property's description.
func TestSchemaMessagesNameTheRule(t *testing.T) {
	for _, tc := range []struct {
		name, file, data, field, want string
	}{
		{"closed object lists its fields", ManifestFile, manifestWith(`"author": {"twitter": "@ann"}`), "author.twitter", "unknown field: an author has only email, name and url"},
		{"enum lists the choices", MCPFile, `{"mcpServers": {"gh": {"type": "ws", "url": "https://x.example"}}}`, "mcpServers.gh.type", `unknown transport "ws": use stdio, streamable-http, sse or http`},
		{"const names what it is", MCPFile, `{"$schema": "x", "mcpServers": {}}`, "$schema", `"x" is not a supported Agent Plugins version: want "` + MCPSchema + `"`},
		{"pattern gives the description", ManifestFile, manifestWith(`"extensions": {"dev.jarvisbot": {"signIn": {"method": "oauth", "scopes": ["repo read"]}}}`), `extensions["dev.jarvisbot"].signIn.scopes[0]`, "must be an OAuth scope: one non-empty word without spaces"},
		{"max items", ManifestFile, manifestWith(`"extensions": {"dev.jarvisbot": {"card": [` + strings.Repeat(`"a",`, 200) + `"a"]}}`), `extensions["dev.jarvisbot"].card`, "has 201 entries; a usage card holds at most 200"},
		{"max length in characters", ManifestFile, manifestWith(`"extensions": {"dev.jarvisbot": {"displayName": "` + strings.Repeat("é", 65) + `"}}`), `extensions["dev.jarvisbot"].displayName`, "is longer than 64 characters"},
		{"property names", MCPFile, `{"mcpServers": {"gh": {"type": "stdio", "command": "x", "env": {"A=B": "1"}}}}`, `mcpServers.gh.env["A=B"]`, "is not an environment variable name"},
		{"NUL in an argument", MCPFile, `{"mcpServers": {"gh": {"type": "stdio", "command": "x", "args": ["a\u0000b"]}}}`, "mcpServers.gh.args[0]", "must be text without NUL bytes"},
		{"nested duplicate", MCPFile, `{"mcpServers": {"gh": {"type": "stdio", "command": "x", "env": {"A": "1", "A": "2"}}}}`, "mcpServers.gh.env.A", "is given twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var probs []Problem
			if tc.file == ManifestFile {
				_, _, probs = ParseManifest(tc.file, []byte(tc.data))
			} else {
				_, probs = ParseMCPConfig(tc.file, []byte(tc.data))
			}
			if !slices.ContainsFunc(probs, func(p Problem) bool { return !p.Warning && p.Field == tc.field && p.Message == tc.want }) {
				t.Errorf("problems %v\nwant %s: %s", probs, tc.field, tc.want)
			}
		})
	}
}

// TestShippedPluginsPassTheirSchemas: every plugin of the shipped store
// passes the full check, schemas included, and reads the same as
// Shipped reads it without them, which is why Shipped may skip them.
func TestShippedPluginsPassTheirSchemas(t *testing.T) {
	fast, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	if len(fast) == 0 {
		t.Fatal("the shipped store is empty")
	}
	fsys := ShippedFS()
	sch := newSchemas()
	for _, p := range fast {
		l := &loader{fsys: fsys, dir: p.Dir, label: p.Dir, schemas: sch}
		full := l.load()
		for _, pr := range l.problems {
			t.Errorf("%s", pr)
		}
		if !reflect.DeepEqual(full, p) {
			t.Errorf("%s reads differently with the schemas checked:\n%+v\nwithout:\n%+v", p.Dir, full, p)
		}
	}
}

// TestShippedFoldersAreNamedLikeTheirPlugins: ShippedNames and
// ShippedPlugin find a shipped plugin by its folder, which holds only while
// every folder is named like its plugin; ShippedPlugin reads it as Shipped
// does, and says there is none for a name the store lacks.
func TestShippedFoldersAreNamedLikeTheirPlugins(t *testing.T) {
	all, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	names, err := ShippedNames()
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != len(all) {
		t.Fatalf("ShippedNames lists %d plugins, Shipped reads %d", len(names), len(all))
	}
	for i, p := range all {
		if p.Dir != p.Manifest.Name || names[i] != p.Manifest.Name {
			t.Errorf("plugin %q lives in folder %q (listed as %q): a shipped plugin's folder is named like it", p.Manifest.Name, p.Dir, names[i])
		}
		one, err := ShippedPlugin(p.Manifest.Name)
		if err != nil {
			t.Errorf("ShippedPlugin(%q): %v", p.Manifest.Name, err)
		} else if !reflect.DeepEqual(one, p) {
			t.Errorf("ShippedPlugin(%q) reads differently from Shipped", p.Manifest.Name)
		}
	}
	for _, name := range []string{"no-such-plugin", "../shipped", ""} {
		if _, err := ShippedPlugin(name); err == nil {
			t.Errorf("ShippedPlugin(%q) found a plugin", name)
		}
	}
	if _, err := ShippedPlugin("no-such-plugin"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("ShippedPlugin of a missing plugin: %v, want not found", err)
	}
}
