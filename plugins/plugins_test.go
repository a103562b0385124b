package plugins

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jarvisbot/jarvisbot"
)

const schemaLine = `"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"`

const fullManifest = `{
  "$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json",
  "name": "github",
  "version": "1.2.0",
  "description": "Issues, pull requests and code on GitHub.",
  "author": {"name": "jarvisbot", "email": "team@jarvisbot.dev", "url": "https://jarvisbot.dev"},
  "homepage": "https://jarvisbot.dev/plugins/github",
  "repository": "https://github.com/jarvisbot/jarvisbot",
  "license": "MIT",
  "keywords": ["git", "code review"],
  "extensions": {
    "dev.jarvisbot": {
      "displayName": "GitHub",
      "logo": "./logo.svg",
      "signIn": {"method": "oauth", "scopes": ["repo", "read:org"]},
      "card": ["pull request", "issue"],
      "cardDE": ["Pull-Request", "Ticket"],
      "tiers": {"create_pull_request": "Ask", "mcp:github/get_issue": "safe"}
    },
    "com.example.client": {"anything": [1, 2, 3]}
  }
}`

const fullMCP = `{
  "$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json",
  "mcpServers": {
    "github": {
      "type": "streamable-http",
      "url": "https://api.githubcopilot.com/mcp/",
      "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}", "X-MCP-Toolsets": "issues,pull_requests"}
    },
    "local-helper": {
      "type": "stdio",
      "command": "./bin/helper",
      "args": ["--data", "${PLUGIN_DATA}/helper", "--token", "${HELPER_TOKEN}"],
      "env": {"CONFIG": "${PLUGIN_ROOT}/config.json", "API_KEY": "${HELPER_KEY}"},
      "cwd": "${PLUGIN_ROOT}/data"
    }
  }
}`

// writeTree writes files (path → content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// pluginDir makes a plugin folder named github with files in it.
func pluginDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "github")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeTree(t, dir, files)
	return dir
}

func fullFiles() map[string]string {
	return map[string]string{
		"plugin.json":                   fullManifest,
		"mcp.json":                      fullMCP,
		"logo.svg":                      "<svg/>",
		"bin/helper":                    "#!/bin/sh\n",
		"data/.keep":                    "",
		"skills/github-issues/SKILL.md": "---\nname: github-issues\n---\nRead first.\n",
		"skills/review/SKILL.md":        "---\nname: review\n---\n",
		"skills/review/scripts/x.sh":    "echo\n",
	}
}

func TestLoadFullPlugin(t *testing.T) { // P1
	p, err := Load(pluginDir(t, fullFiles()))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Warnings) != 0 {
		t.Errorf("warnings: %q", p.Warnings)
	}
	m := p.Manifest
	if m.Name != "github" || m.Version != "1.2.0" || m.Author == nil || m.Author.Email != "team@jarvisbot.dev" || m.License != "MIT" || !slices.Equal(m.Keywords, []string{"git", "code review"}) {
		t.Errorf("manifest = %+v", m)
	}
	if _, ok := m.Extensions["com.example.client"]; !ok {
		t.Error("another app's extension was not kept")
	}
	e := p.Ext
	if p.DisplayName() != "GitHub" || e.Logo != "./logo.svg" || e.SignIn == nil || e.SignIn.Method != SignInOAuth || len(e.SignIn.Scopes) != 2 {
		t.Errorf("extension = %+v", e)
	}
	if e.Tiers["create_pull_request"] != "ask" || e.Tiers["mcp:github/get_issue"] != "safe" {
		t.Errorf("tiers = %v", e.Tiers)
	}
	if !slices.Equal(e.CardDE, []string{"Pull-Request", "Ticket"}) {
		t.Errorf("cardDE = %q", e.CardDE)
	}
	if p.MCP == nil || len(p.MCP.Servers) != 2 {
		t.Fatalf("mcp = %+v", p.MCP)
	}
	gh := p.MCP.Servers["github"]
	if gh.Type != TransportStreamableHTTP || gh.Headers["Authorization"] != "Bearer ${GITHUB_TOKEN}" {
		t.Errorf("github server = %+v", gh)
	}
	if h := p.MCP.Servers["local-helper"]; h.Type != TransportStdio || h.Command != "./bin/helper" || h.Cwd != "${PLUGIN_ROOT}/data" {
		t.Errorf("helper server = %+v", h)
	}
	if !slices.Equal(p.Skills, []string{"github-issues", "review"}) {
		t.Errorf("skills = %q", p.Skills)
	}
}

func TestLoadMinimalPlugin(t *testing.T) { // P1
	p, err := Load(pluginDir(t, map[string]string{"plugin.json": `{` + schemaLine + `, "name": "a"}`}))
	if err != nil {
		t.Fatal(err)
	}
	if p.Manifest.Name != "a" || p.MCP != nil || p.Skills != nil || p.Warnings != nil || p.DisplayName() != "a" {
		t.Errorf("plugin = %+v", p)
	}
}

func TestLoadFSEmbeddedStore(t *testing.T) { // P2: the shipped store is read by the same code
	fsys := fstest.MapFS{}
	for name, content := range fullFiles() {
		fsys["store/github/"+name] = &fstest.MapFile{Data: []byte(content)}
	}
	p, err := LoadFS(fsys, "store/github")
	if err != nil {
		t.Fatal(err)
	}
	if p.Manifest.Name != "github" || len(p.Skills) != 2 || p.MCP == nil {
		t.Errorf("plugin = %+v", p)
	}
	fsys["store/bad/plugin.json"] = &fstest.MapFile{Data: []byte(`{"name": "Bad"}`)}
	_, err = LoadFS(fsys, "store/bad")
	if err == nil || !strings.HasPrefix(err.Error(), "store/bad/plugin.json: ") {
		t.Errorf("err = %v", err)
	}
	for _, dir := range []string{"../etc", "/etc", "store/../..", "store/missing"} {
		if _, err := LoadFS(fsys, dir); err == nil {
			t.Errorf("LoadFS(%q) succeeded", dir)
		}
	}
	if _, err := LoadFS(fsys, "store/missing"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("missing folder: code %q", jarvisbot.ErrorCode(err))
	}
}

// manifestWith returns a manifest with $schema and name and the given
// members added.
func manifestWith(members string) string {
	if members != "" {
		members = ", " + members
	}
	return `{` + schemaLine + `, "name": "github"` + members + `}`
}

func TestManifestViolations(t *testing.T) { // P1: every violation names file and field
	tests := []struct {
		name, data, field, want string
	}{
		{"missing schema", `{"name": "github"}`, "$schema", "missing"},
		{"other schema", `{"$schema": "https://agent-plugins.org/schemas/9.0.0/plugin.schema.json", "name": "github"}`, "$schema", "not a supported"},
		{"schema not string", `{"$schema": 1, "name": "github"}`, "$schema", "must be a string, not a number"},
		{"missing name", `{` + schemaLine + `}`, "name", "missing"},
		{"empty name", `{` + schemaLine + `, "name": ""}`, "name", "is empty"},
		{"upper-case name", `{` + schemaLine + `, "name": "GitHub"}`, "name", "upper-case"},
		{"leading hyphen", `{` + schemaLine + `, "name": "-gh"}`, "name", "start and end"},
		{"trailing period", `{` + schemaLine + `, "name": "gh."}`, "name", "start and end"},
		{"double hyphen", `{` + schemaLine + `, "name": "a--b"}`, "name", `"--"`},
		{"double period", `{` + schemaLine + `, "name": "a..b"}`, "name", `".."`},
		{"traversal name", `{` + schemaLine + `, "name": "../../etc"}`, "name", "may only hold"},
		{"long name", `{` + schemaLine + `, "name": "` + strings.Repeat("a", 65) + `"}`, "name", "longer than 64"},
		{"name not string", `{` + schemaLine + `, "name": ["github"]}`, "name", "must be a string, not an array"},
		{"version number", manifestWith(`"version": 1`), "version", "must be a string"},
		{"description null", manifestWith(`"description": null`), "description", "not null"},
		{"homepage object", manifestWith(`"homepage": {}`), "homepage", "must be a string"},
		{"repository", manifestWith(`"repository": true`), "repository", "must be a string"},
		{"license", manifestWith(`"license": 2`), "license", "must be a string"},
		{"keywords string", manifestWith(`"keywords": "git"`), "keywords", "array of strings"},
		{"keyword number", manifestWith(`"keywords": ["git", 3]`), "keywords[1]", "must be a string"},
		{"author string", manifestWith(`"author": "Ann <ann@example.com>"`), "author", "must be an object"},
		{"author field", manifestWith(`"author": {"name": "Ann", "twitter": "@ann"}`), "author.twitter", "unknown field"},
		{"author email", manifestWith(`"author": {"email": 5}`), "author.email", "must be a string"},
		{"namespace not object", manifestWith(`"extensions": {"com.example.app": true}`), `extensions["com.example.app"]`, "must be an object"},
		{"duplicate field", manifestWith(`"version": "1", "version": "2"`), "version", "given twice"},
		{"ext unknown", manifestWith(`"extensions": {"dev.jarvisbot": {"colour": "red"}}`), `extensions["dev.jarvisbot"].colour`, "unknown field"},
		{"ext display empty", manifestWith(`"extensions": {"dev.jarvisbot": {"displayName": " "}}`), `extensions["dev.jarvisbot"].displayName`, "empty"},
		{"ext sign-in method", manifestWith(`"extensions": {"dev.jarvisbot": {"signIn": {"method": "password"}}}`), `extensions["dev.jarvisbot"].signIn.method`, "unknown sign-in method"},
		{"ext sign-in missing method", manifestWith(`"extensions": {"dev.jarvisbot": {"signIn": {}}}`), `extensions["dev.jarvisbot"].signIn.method`, "missing"},
		{"ext scopes without oauth", manifestWith(`"extensions": {"dev.jarvisbot": {"signIn": {"method": "api-key", "scopes": ["repo"]}}}`), `extensions["dev.jarvisbot"].signIn.scopes`, "only an oauth"},
		{"ext tier", manifestWith(`"extensions": {"dev.jarvisbot": {"tiers": {"delete_repo": "never"}}}`), `extensions["dev.jarvisbot"].tiers.delete_repo`, "unknown tier"},
		{"ext tier id", manifestWith(`"extensions": {"dev.jarvisbot": {"tiers": {"mcp:github": "ask"}}}`), `extensions["dev.jarvisbot"].tiers["mcp:github"]`, "mcp:SERVER/TOOL"},
		{"ext card", manifestWith(`"extensions": {"dev.jarvisbot": {"card": ["issue", ""]}}`), `extensions["dev.jarvisbot"].card[1]`, "empty"},
		{"ext builtin", manifestWith(`"extensions": {"dev.jarvisbot": {"builtin": "yes"}}`), `extensions["dev.jarvisbot"].builtin`, "true or false"},
		{"ext logo outside", manifestWith(`"extensions": {"dev.jarvisbot": {"logo": "./../../logo.svg"}}`), `extensions["dev.jarvisbot"].logo`, "leads out"},
		{"ext logo http", manifestWith(`"extensions": {"dev.jarvisbot": {"logo": "http://example.com/logo.svg"}}`), `extensions["dev.jarvisbot"].logo`, "https"},
		{"ext logo missing", manifestWith(`"extensions": {"dev.jarvisbot": {"logo": "./logo.png"}}`), `extensions["dev.jarvisbot"].logo`, "not in the plugin folder"},
		{"array", `[]`, "", "must hold a JSON object, not an array"},
		{"syntax", `{"name": }`, "", "not valid JSON"},
		{"trailing data", manifestWith("") + ` {}`, "", "data after"},
		{"empty file", ``, "", "empty"},
		{"byte-order mark", "\xef\xbb\xbf" + manifestWith(""), "", "byte-order mark"},
		{"invalid UTF-8", `{` + schemaLine + `, "name": "gh", "description": "caf` + "\xe9" + `"}`, "", "binary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(pluginDir(t, map[string]string{"plugin.json": tt.data}))
			if err == nil {
				t.Fatal("Load accepted the plugin")
			}
			if code := jarvisbot.ErrorCode(err); code != jarvisbot.EINVALID {
				t.Errorf("code = %q", code)
			}
			prefix := "github/plugin.json: "
			if tt.field != "" {
				prefix += tt.field + ": "
			}
			if msg := err.Error(); !strings.Contains(msg, prefix) || !strings.Contains(msg, tt.want) {
				t.Errorf("err = %v\nwant %q … %q", err, prefix, tt.want)
			}
		})
	}
}

func TestUnknownFieldsWarned(t *testing.T) { // P1: reported and ignored
	p, err := Load(pluginDir(t, map[string]string{"plugin.json": manifestWith(`"displayName": "GitHub", "hooks": {}, "extensions": "com.example"`)}))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"displayName: unknown field", "hooks: unknown field", "extensions: must be an object"}
	if len(p.Warnings) != len(want) {
		t.Fatalf("warnings = %q", p.Warnings)
	}
	for i, w := range want {
		if !strings.Contains(p.Warnings[i], "github/plugin.json: "+w) {
			t.Errorf("warning %d = %q, want %q", i, p.Warnings[i], w)
		}
	}
	if p.Ext.DisplayName != "" || p.Manifest.Extensions != nil {
		t.Errorf("an ignored field was read: %+v", p)
	}
}

func TestValidateListsEveryProblem(t *testing.T) { // P1: `plugins validate` names every problem
	dir := pluginDir(t, map[string]string{
		"plugin.json":              `{"name": "Git--Hub", "version": 2, "author": "me", "tags": []}`,
		"mcp.json":                 `{"mcpServers": {"gh": {"url": "http://example.com/mcp"}, "bad name!": {"command": "x"}}}`,
		"skills/Bad_Name/SKILL.md": "x",
		"skills/notes.txt":         "x",
	})
	got := Validate(dir)
	want := []struct {
		file, field string
		warning     bool
	}{
		{"plugin.json", "name", false},
		{"plugin.json", "version", false},
		{"plugin.json", "author", false},
		{"plugin.json", "tags", true},
		{"plugin.json", "$schema", false},
		{"mcp.json", "mcpServers.gh.type", true},
		{"mcp.json", "mcpServers.gh.url", false},
		{"mcp.json", `mcpServers["bad name!"]`, false},
		{"mcp.json", "$schema", true},
		{"skills/Bad_Name", "", false},
		{"skills/notes.txt", "", true},
	}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(p Problem) bool {
			return strings.HasSuffix(p.File, "github/"+w.file) && p.Field == w.field && p.Warning == w.warning
		}) {
			t.Errorf("no problem for %s: %s (warning %v)", w.file, w.field, w.warning)
		}
	}
	if len(got) != len(want) {
		for _, p := range got {
			t.Log(p)
		}
		t.Errorf("%d problems, want %d", len(got), len(want))
	}
	if Validate(pluginDir(t, fullFiles())) != nil {
		t.Error("a valid plugin has problems")
	}
	_, err := Load(dir)
	if err == nil || !strings.Contains(err.Error(), "more problems") {
		t.Errorf("Load err = %v", err)
	}
}

func TestMCPConfigForms(t *testing.T) { // P1: the mcpServers shape other apps write
	tests := []struct {
		name, data string
		want       MCPServer
		warnings   int
	}{
		{"claude desktop", `{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], "env": {"DEBUG": "1", "GITHUB_TOKEN": "${GITHUB_TOKEN}"}}}}`,
			MCPServer{Type: TransportStdio, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/tmp"}, Env: map[string]string{"DEBUG": "1", "GITHUB_TOKEN": "${GITHUB_TOKEN}"}}, 2},
		{"cursor", `{"mcpServers": {"fs": {"url": "https://mcp.example.com/mcp", "headers": {"API_KEY": "${EXAMPLE_KEY}"}}}}`,
			MCPServer{Type: TransportStreamableHTTP, URL: "https://mcp.example.com/mcp", Headers: map[string]string{"API_KEY": "${EXAMPLE_KEY}"}}, 2},
		{"claude code http", `{"mcpServers": {"fs": {"type": "http", "url": "https://mcp.example.com/mcp"}}}`,
			MCPServer{Type: TransportStreamableHTTP, URL: "https://mcp.example.com/mcp"}, 2},
		{"sse", `{"$schema": "` + MCPSchema + `", "mcpServers": {"fs": {"type": "sse", "url": "https://mcp.example.com/sse"}}}`,
			MCPServer{Type: TransportSSE, URL: "https://mcp.example.com/sse"}, 0},
		{"loopback http", `{"$schema": "` + MCPSchema + `", "mcpServers": {"fs": {"type": "streamable-http", "url": "http://127.0.0.1:8080/mcp"}}}`,
			MCPServer{Type: TransportStreamableHTTP, URL: "http://127.0.0.1:8080/mcp"}, 0},
		{"localhost http", `{"$schema": "` + MCPSchema + `", "mcpServers": {"fs": {"type": "streamable-http", "url": "http://localhost/mcp"}}}`,
			MCPServer{Type: TransportStreamableHTTP, URL: "http://localhost/mcp"}, 0},
		{"spec stdio", `{"$schema": "` + MCPSchema + `", "mcpServers": {"fs": {"type": "stdio", "command": "uvx", "args": ["srv"], "cwd": "${PLUGIN_DATA}/x"}}}`,
			MCPServer{Type: TransportStdio, Command: "uvx", Args: []string{"srv"}, Cwd: "${PLUGIN_DATA}/x"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, probs := ParseMCPConfig("mcp.json", []byte(tt.data))
			warnings := 0
			for _, p := range probs {
				if !p.Warning {
					t.Errorf("problem: %s", p)
				}
				warnings++
			}
			if warnings != tt.warnings {
				t.Errorf("warnings = %v, want %d", probs, tt.warnings)
			}
			got := cfg.Servers["fs"]
			if got.Type != tt.want.Type || got.Command != tt.want.Command || got.URL != tt.want.URL || got.Cwd != tt.want.Cwd ||
				!slices.Equal(got.Args, tt.want.Args) || len(got.Env) != len(tt.want.Env) || len(got.Headers) != len(tt.want.Headers) {
				t.Errorf("server = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestMCPConfigViolations(t *testing.T) { // P1: no secrets in mcp.json, and every rule named
	srv := func(entry string) string {
		return `{"$schema": "` + MCPSchema + `", "mcpServers": {"gh": ` + entry + `}}`
	}
	tests := []struct {
		name, data, field, want string
	}{
		{"bearer literal", srv(`{"type": "streamable-http", "url": "https://x.example/mcp", "headers": {"Authorization": "Bearer abc123"}}`), "mcpServers.gh.headers.Authorization", "keyring"},
		{"api key header", srv(`{"type": "streamable-http", "url": "https://x.example/mcp", "headers": {"X-Api-Key": "abcdef"}}`), "mcpServers.gh.headers.X-Api-Key", "keyring"},
		{"token-shaped header", srv(`{"type": "streamable-http", "url": "https://x.example/mcp", "headers": {"X-Whatever": "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}}`), "mcpServers.gh.headers.X-Whatever", "keyring"},
		{"token env", srv(`{"type": "stdio", "command": "npx", "env": {"GITHUB_TOKEN": "ghp_1234"}}`), "mcpServers.gh.env.GITHUB_TOKEN", "keyring"},
		{"password env", srv(`{"type": "stdio", "command": "npx", "env": {"DB_PASSWORD": "hunter2"}}`), "mcpServers.gh.env.DB_PASSWORD", "keyring"},
		{"secret env", srv(`{"type": "stdio", "command": "npx", "env": {"clientSecret": "s3cr3t"}}`), "mcpServers.gh.env.clientSecret", "keyring"},
		{"key env", srv(`{"type": "stdio", "command": "npx", "env": {"OPENAI_API_KEY": "sk-proj-abcdefghijklmnop"}}`), "mcpServers.gh.env.OPENAI_API_KEY", "keyring"},
		{"reference with literal", srv(`{"type": "stdio", "command": "npx", "env": {"API_KEY": "${X}abc"}}`), "mcpServers.gh.env.API_KEY", "keyring"},
		{"token flag", srv(`{"type": "stdio", "command": "npx", "args": ["srv", "--api-key=abc123"]}`), "mcpServers.gh.args[1]", "keyring"},
		{"token flag next arg", srv(`{"type": "stdio", "command": "npx", "args": ["--token", "abc123"]}`), "mcpServers.gh.args[0]", "keyring"},
		{"header arg", srv(`{"type": "stdio", "command": "npx", "args": ["mcp-remote", "https://x.example/mcp", "--header", "Authorization: Bearer abc123"]}`), "mcpServers.gh.args[3]", "keyring"},
		{"token in url", srv(`{"type": "sse", "url": "https://x.example/sse?api_key=abc123"}`), "mcpServers.gh.url", "keyring"},
		{"user in url", srv(`{"type": "sse", "url": "https://me:pw@x.example/sse"}`), "mcpServers.gh.url", "user information"},
		{"plain http", srv(`{"type": "streamable-http", "url": "http://x.example/mcp"}`), "mcpServers.gh.url", "plain http"},
		{"relative url", srv(`{"type": "streamable-http", "url": "/mcp"}`), "mcpServers.gh.url", "absolute"},
		{"fragment", srv(`{"type": "streamable-http", "url": "https://x.example/mcp#a"}`), "mcpServers.gh.url", "fragment"},
		{"ftp", srv(`{"type": "streamable-http", "url": "ftp://x.example/mcp"}`), "mcpServers.gh.url", "not an https URL"},
		{"missing url", srv(`{"type": "sse"}`), "mcpServers.gh.url", "missing"},
		{"missing command", srv(`{"type": "stdio"}`), "mcpServers.gh.command", "missing"},
		{"empty command", srv(`{"type": "stdio", "command": ""}`), "mcpServers.gh.command", "empty"},
		{"shell command", srv(`{"type": "stdio", "command": "npx -y server"}`), "mcpServers.gh.command", "args"},
		{"absolute command", srv(`{"type": "stdio", "command": "/usr/bin/node"}`), "mcpServers.gh.command", "program name"},
		{"escaping command", srv(`{"type": "stdio", "command": "./../bin/server"}`), "mcpServers.gh.command", "leads out"},
		{"escaping cwd", srv(`{"type": "stdio", "command": "x", "cwd": "${PLUGIN_ROOT}/../.."}`), "mcpServers.gh.cwd", "leads out"},
		{"bare cwd", srv(`{"type": "stdio", "command": "x", "cwd": "data"}`), "mcpServers.gh.cwd", "must start with"},
		{"reserved env", srv(`{"type": "stdio", "command": "x", "env": {"PLUGIN_ROOT": "/"}}`), "mcpServers.gh.env.PLUGIN_ROOT", "set by jarvisbot"},
		{"env not string", srv(`{"type": "stdio", "command": "x", "env": {"N": 1}}`), "mcpServers.gh.env.N", "must be a string"},
		{"url on stdio", srv(`{"type": "stdio", "command": "x", "url": "https://x.example"}`), "mcpServers.gh.url", "belongs to an HTTP server"},
		{"command on http", srv(`{"type": "sse", "url": "https://x.example", "command": "x"}`), "mcpServers.gh.command", "belongs to a stdio server"},
		{"both without type", srv(`{"command": "x", "url": "https://x.example"}`), "mcpServers.gh", "both command and url"},
		{"neither", srv(`{}`), "mcpServers.gh", "neither"},
		{"unknown type", srv(`{"type": "websocket", "url": "wss://x.example"}`), "mcpServers.gh.type", "unknown transport"},
		{"unknown field", srv(`{"type": "stdio", "command": "x", "autoApprove": []}`), "mcpServers.gh.autoApprove", "unknown field"},
		{"header twice", srv(`{"type": "sse", "url": "https://x.example", "headers": {"X-A": "1", "x-a": "2"}}`), "mcpServers.gh.headers.x-a", "another case"},
		{"header name", srv(`{"type": "sse", "url": "https://x.example", "headers": {"X A": "1"}}`), `mcpServers.gh.headers["X A"]`, "header name"},
		{"header newline", srv(`{"type": "sse", "url": "https://x.example", "headers": {"X-A": "1\r\nHost: evil"}}`), "mcpServers.gh.headers.X-A", "control character"},
		{"server name", `{"mcpServers": {"../etc": {"command": "x"}}}`, `mcpServers["../etc"]`, "server name"},
		{"servers not object", `{"mcpServers": []}`, "mcpServers", "must be an object"},
		{"missing servers", `{"$schema": "` + MCPSchema + `"}`, "mcpServers", "missing"},
		{"other schema", `{"$schema": "https://agent-plugins.org/schemas/2.0.0/mcp.schema.json", "mcpServers": {}}`, "$schema", "not a supported"},
		{"unknown top-level", `{"mcpServers": {}, "globalShortcut": "x"}`, "globalShortcut", "unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"plugin.json": manifestWith(""), "mcp.json": tt.data}
			_, err := Load(pluginDir(t, files))
			if err == nil {
				t.Fatal("Load accepted the plugin")
			}
			prefix := "github/mcp.json: " + tt.field + ": "
			if msg := err.Error(); !strings.Contains(msg, prefix) || !strings.Contains(msg, tt.want) {
				t.Errorf("err = %v\nwant %q … %q", err, prefix, tt.want)
			}
			for _, secret := range []string{"abc123", "hunter2", "s3cr3t", "ghp_1234", "sk-proj"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("the message repeats the secret %q: %v", secret, err)
				}
			}
		})
	}
}

func TestMCPReferencesAccepted(t *testing.T) { // P1: ${VAR} is how a plugin names a secret
	data := `{"$schema": "` + MCPSchema + `", "mcpServers": {
	  "a": {"type": "stdio", "command": "npx", "args": ["--api-key", "${API_KEY}", "--token=${T}", "--key-file", "./k.pem", "--header", "Authorization: Bearer ${TOKEN}", "--use-auth", "srv", "https://x.example"],
	        "env": {"API_KEY": "${API_KEY}", "GITHUB_TOKEN": "", "TOKEN_FILE": "/run/secrets/t", "AWS_ACCESS_KEY_ID": "${AWS_ID}", "KEYBOARD": "de", "PWD": "/tmp"}},
	  "b": {"type": "streamable-http", "url": "https://x.example/mcp?workspace=main", "headers": {"Authorization": "Bearer ${TOKEN}", "Cookie": "${SESSION}", "X-Region": "eu"}}}}`
	cfg, probs := ParseMCPConfig("mcp.json", []byte(data))
	if len(probs) != 0 {
		t.Fatalf("problems: %v", probs)
	}
	if len(cfg.Servers) != 2 {
		t.Errorf("servers = %v", cfg.Servers)
	}
}

func TestBuiltinBringsNoServer(t *testing.T) { // P2: builtins have native tools
	files := map[string]string{
		"plugin.json": manifestWith(`"extensions": {"dev.jarvisbot": {"builtin": true}}`),
		"mcp.json":    `{"$schema": "` + MCPSchema + `", "mcpServers": {}}`,
	}
	_, err := Load(pluginDir(t, files))
	if err == nil || !strings.Contains(err.Error(), "github/mcp.json: a builtin plugin") {
		t.Errorf("err = %v", err)
	}
	delete(files, "mcp.json")
	if p, err := Load(pluginDir(t, files)); err != nil || !p.Ext.Builtin {
		t.Errorf("builtin without mcp.json: %v", err)
	}
}

func TestFolderSafety(t *testing.T) { // Bad input: traversal, symlinks out, huge and binary files
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"secret.json": manifestWith(""), "skill/SKILL.md": "x"})
	minimal := map[string]string{"plugin.json": manifestWith("")}
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string
	}{
		{"manifest symlink out", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "plugin.json"))
			symlink(t, filepath.Join(outside, "secret.json"), filepath.Join(dir, "plugin.json"))
		}, "github/plugin.json: is a symbolic link to"},
		{"relative symlink out", func(t *testing.T, dir string) {
			symlink(t, "../../../etc/passwd", filepath.Join(dir, "mcp.json"))
		}, "github/mcp.json: is a symbolic link to"},
		{"skill folder symlink out", func(t *testing.T, dir string) {
			os.MkdirAll(filepath.Join(dir, "skills"), 0o755)
			symlink(t, filepath.Join(outside, "skill"), filepath.Join(dir, "skills", "evil"))
		}, "github/skills/evil: is a symbolic link to"},
		{"stray symlink out", func(t *testing.T, dir string) {
			os.MkdirAll(filepath.Join(dir, "scripts"), 0o755)
			symlink(t, "/etc", filepath.Join(dir, "scripts", "etc"))
		}, "github/scripts/etc: is a symbolic link to"},
		{"symlink escape through a link", func(t *testing.T, dir string) {
			os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
			symlink(t, "..", filepath.Join(dir, "sub", "up"))
			symlink(t, "up/../secret.json", filepath.Join(dir, "sub", "mcp.json"))
			symlink(t, "sub/mcp.json", filepath.Join(dir, "mcp.json"))
		}, "github/mcp.json: is a symbolic link that cannot be followed"},
		{"dangling symlink", func(t *testing.T, dir string) {
			symlink(t, "nothing.json", filepath.Join(dir, "mcp.json"))
		}, "github/mcp.json: is a symbolic link to nothing"},
		{"huge manifest", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"plugin.json": manifestWith(`"description": "` + strings.Repeat("x", MaxFileSize) + `"`)})
		}, "github/plugin.json: is too large: 1 MiB (1048"},
		{"huge skill", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"skills/big/SKILL.md": strings.Repeat("x", MaxFileSize+1)})
		}, "github/skills/big/SKILL.md: is too large: 1 MiB (1048577 bytes), where a plugin file may be at most 1 MiB (1048576 bytes)"},
		{"binary manifest", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"plugin.json": "\x7fELF\x02\x01\x01\x00\x00"})
		}, "github/plugin.json: is a binary file"},
		{"binary skill", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"skills/bin/SKILL.md": "\x89PNG\r\n\x1a\n\x00\x00"})
		}, "github/skills/bin/SKILL.md: is a binary file"},
		{"manifest is a folder", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "plugin.json"))
			os.MkdirAll(filepath.Join(dir, "plugin.json"), 0o755)
		}, "github/plugin.json: is not a regular file"},
		{"skills is a file", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"skills": "x"})
		}, "github/skills: is not a folder"},
		{"bundled command missing", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"mcp.json": `{"$schema": "` + MCPSchema + `", "mcpServers": {"x": {"type": "stdio", "command": "./bin/server"}}}`})
		}, "github/mcp.json: mcpServers.x.command: \"./bin/server\" is not in the plugin folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := pluginDir(t, minimal)
			tt.setup(t, dir)
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v\nwant %q", err, tt.want)
			}
			if code := jarvisbot.ErrorCode(err); code != jarvisbot.EINVALID {
				t.Errorf("code = %q", code)
			}
		})
	}
}

func TestSymlinkInsideAllowed(t *testing.T) { // Agent Plugins §4.1: links may stay inside
	dir := pluginDir(t, map[string]string{
		"plugin.json":           manifestWith(""),
		"shared/mcp.json":       `{"$schema": "` + MCPSchema + `", "mcpServers": {}}`,
		"manuals/gh/SKILL.md":   "---\nname: gh\n---\n",
		"skills/other/SKILL.md": "x",
	})
	symlink(t, "shared/mcp.json", filepath.Join(dir, "mcp.json"))
	symlink(t, "../manuals/gh", filepath.Join(dir, "skills", "gh"))
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.MCP == nil || !slices.Equal(p.Skills, []string{"gh", "other"}) {
		t.Errorf("plugin = %+v", p)
	}
}

func TestMissingFolderAndManifest(t *testing.T) {
	if _, err := Load(filepath.Join(t.TempDir(), "nope")); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("missing folder: %v", err)
	}
	_, err := Load(pluginDir(t, map[string]string{"skills/x/SKILL.md": "x"}))
	if jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND || !strings.Contains(err.Error(), "github/plugin.json: not found") {
		t.Errorf("missing plugin.json: %v", err)
	}
	if probs := Validate(filepath.Join(t.TempDir(), "nope")); len(probs) != 1 || !strings.Contains(probs[0].Message, "does not exist") {
		t.Errorf("Validate of a missing folder = %v", probs)
	}
}

func TestValidName(t *testing.T) { // Agent Plugins §5.5
	for _, name := range []string{"my-plugin", "acme.tools", "lint3r", "a", "cal-com", strings.Repeat("a", 64)} {
		if err := ValidName(name); err != nil {
			t.Errorf("ValidName(%q) = %v", name, err)
		}
	}
	for _, name := range []string{"", "My-Plugin", "-start", "end-", ".a", "has--double", "too.many..dots", "a_b", "a b", "a/b", strings.Repeat("a", 65), "ü"} {
		if ValidName(name) == nil {
			t.Errorf("ValidName(%q) accepted", name)
		}
	}
}

func TestProblemString(t *testing.T) {
	if s := (Problem{File: "github/plugin.json", Field: "name", Message: "is empty"}).String(); s != "github/plugin.json: name: is empty" {
		t.Errorf("String() = %q", s)
	}
	if s := (Problem{File: "github/mcp.json", Message: "is a binary file"}).String(); s != "github/mcp.json: is a binary file" {
		t.Errorf("String() = %q", s)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

func TestLoadFSFromRootSeesSymlinks(t *testing.T) { // Bad input: a store folder on disk read through fs.FS
	dir := pluginDir(t, map[string]string{"plugin.json": manifestWith("")})
	os.MkdirAll(filepath.Join(dir, "scripts"), 0o755)
	symlink(t, "../../../etc", filepath.Join(dir, "scripts", "etc"))
	root, err := os.OpenRoot(filepath.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	_, err = LoadFS(root.FS(), "github")
	if err == nil || !strings.HasPrefix(err.Error(), "github/scripts/etc: is a symbolic link to") {
		t.Errorf("err = %v", err)
	}
}
