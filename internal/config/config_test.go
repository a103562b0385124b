package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
)

// env returns a getenv func over a map, so tests never read the real
// environment.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// loadIn writes content as the config file of a case named name under
// dir and loads it with that file, HOME at dir and the case's extra
// variables; it returns the config, the file's path and Load's error.
func loadIn(t *testing.T, dir, name, content string, extra map[string]string) (Config, string, error) {
	t.Helper()
	path := writeFile(t, filepath.Join(dir, name, "config.yaml"), content)
	e := map[string]string{"JARVIS_CONFIG": path, "HOME": dir}
	for k, v := range extra {
		e[k] = v
	}
	cfg, err := Load(env(e))
	return cfg, path, err
}

// mentions fails the test for each word err's text does not hold.
func mentions(t *testing.T, err error, words ...string) {
	t.Helper()
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDefaultPaths(t *testing.T) {
	tests := []struct {
		name          string
		env           map[string]string
		path, dataDir string
	}{
		{"home only", map[string]string{"HOME": "/h"}, "/h/.config/jarvisbot/config.yaml", "/h/.local/share/jarvisbot"},
		{"xdg", map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/c", "XDG_DATA_HOME": "/d"}, "/c/jarvisbot/config.yaml", "/d/jarvisbot"},
		{"relative xdg ignored", map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "c", "XDG_DATA_HOME": "d"}, "/h/.config/jarvisbot/config.yaml", "/h/.local/share/jarvisbot"},
		{"explicit config", map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/c", "JARVIS_CONFIG": "/etc/j.yaml"}, "/etc/j.yaml", "/h/.local/share/jarvisbot"},
		{"nothing", map[string]string{}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DefaultPath(env(tt.env)); got != tt.path {
				t.Errorf("DefaultPath = %q, want %q", got, tt.path)
			}
			if got := DefaultDataDir(env(tt.env)); got != tt.dataDir {
				t.Errorf("DefaultDataDir = %q, want %q", got, tt.dataDir)
			}
		})
	}
}

func TestLoadWithoutFileUsesDefaults(t *testing.T) {
	home := t.TempDir()
	cfg, err := Load(env(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		DataDir:  filepath.Join(home, ".local", "share", "jarvisbot"),
		LogLevel: "info",
		Keyring:  Keyring{Dir: filepath.Join(home, ".local", "share", "jarvisbot", "keyring")},
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("Load() = %+v, want %+v", cfg, want)
	}
}

func TestLoadExplicitMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.yaml")
	_, err := Load(env(map[string]string{"JARVIS_CONFIG": path, "HOME": t.TempDir()}))
	if jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Fatalf("code = %s (%v), want %s", jarvisbot.ErrorCode(err), err, jarvisbot.ENOTFOUND)
	}
	mentions(t, err, path, "jarvisbot init")
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "conf", "config.yaml"), `
data_dir: data
log_level: DEBUG
keyring:
  backend: file
  dir: ~/keys
agents:
  research:
    description: Reads papers.
    allow: ["mcp:arxiv/*"]
    block: [cli:rm]
mcp:
  github:
    title: GitHub
    aliases: [gh]
    card: [issues]
tiers:
  builtin:wiki: Safe
  mcp:github/*: ask
`)
	cfg, err := Load(env(map[string]string{"JARVIS_CONFIG": path, "HOME": "/home/owner"}))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		DataDir:  filepath.Join(dir, "conf", "data"),
		LogLevel: "debug",
		Keyring:  Keyring{Backend: "file", Dir: "/home/owner/keys"},
		Agents:   map[string]Agent{"research": {Description: "Reads papers.", Allow: []string{"mcp:arxiv/*"}, Block: []string{"cli:rm"}}},
		MCP:      map[string]MCPServer{"github": {Title: "GitHub", Aliases: []string{"gh"}, Card: []string{"issues"}}},
		Tiers:    map[string]string{"builtin:wiki": "safe", "mcp:github/*": "ask"},
		Path:     path,
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("Load() =\n%+v\nwant\n%+v", cfg, want)
	}
}

// TestProviderCodingCLIM5: an agent's provider may be the claude-code or
// codex CLI, with command naming a CLI off PATH; the names are read in
// any case, like the API providers'.
func TestProviderCodingCLIM5(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "config.yaml"), `
provider:
  name: Claude-Code
agents:
  coder:
    description: Writes code.
    provider: {name: codex, command: /opt/codex/bin/codex}
`)
	cfg, err := Load(env(map[string]string{"JARVIS_CONFIG": path, "HOME": dir}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Provider.Name != "claude-code" {
		t.Errorf("provider name %q, want claude-code", cfg.Provider.Name)
	}
	if p := cfg.Agents["coder"].Provider; p.Name != "codex" || p.Command != "/opt/codex/bin/codex" {
		t.Errorf("agent provider %+v, want codex at /opt/codex/bin/codex", p)
	}
}

func TestEnvironmentWins(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "config.yaml"), "data_dir: /from/file\nlog_level: warn\nkeyring:\n  backend: pass\n")
	tests := []struct {
		name string
		env  map[string]string
		want Config
	}{
		{"file only", map[string]string{}, Config{DataDir: "/from/file", LogLevel: "warn", Keyring: Keyring{Backend: "pass", Dir: "/from/file/keyring"}}},
		{"env overrides", map[string]string{"JARVIS_DATA_DIR": "~/env", "JARVIS_LOG_LEVEL": "error", "JARVIS_KEYRING_BACKEND": "keyctl"},
			Config{DataDir: "/home/o/env", LogLevel: "error", Keyring: Keyring{Backend: "keyctl", Dir: "/home/o/env/keyring"}}},
		{"auto backend", map[string]string{"JARVIS_KEYRING_BACKEND": "auto"}, Config{DataDir: "/from/file", LogLevel: "warn", Keyring: Keyring{Dir: "/from/file/keyring"}}},
		{"MCP init timeout", map[string]string{"JARVIS_MCP_INIT_TIMEOUT": "5s"}, Config{DataDir: "/from/file", LogLevel: "warn", Keyring: Keyring{Backend: "pass", Dir: "/from/file/keyring"}, MCPInitTimeout: 5 * time.Second}},
		{"built-in plugins", map[string]string{"JARVIS_TIMEZONE": "Europe/Berlin", "JARVIS_BROWSER_ENGINE": "chromium", "JARVIS_BROWSER_ALLOW": "nas.home, 10.0.0.0/8",
			"JARVIS_GOOGLE_API_ENDPOINT": "http://127.0.0.1:1/", "JARVIS_GOOGLE_TOKEN_URL": "http://127.0.0.1:2/token", "JARVIS_SPOTIFY_AUTH_URL": "http://127.0.0.1:3/authorize"},
			Config{DataDir: "/from/file", LogLevel: "warn", Keyring: Keyring{Backend: "pass", Dir: "/from/file/keyring"}, Timezone: "Europe/Berlin",
				Browser: Browser{Engine: "chromium", Allow: []string{"nas.home", "10.0.0.0/8"}},
				SignIn:  SignIn{Google: OAuthClient{APIEndpoint: "http://127.0.0.1:1/", TokenURL: "http://127.0.0.1:2/token"}, Spotify: OAuthClient{AuthURL: "http://127.0.0.1:3/authorize"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.env["JARVIS_CONFIG"] = path
			tt.env["HOME"] = "/home/o"
			cfg, err := Load(env(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Path = path
			if !reflect.DeepEqual(cfg, tt.want) {
				t.Errorf("got %+v, want %+v", cfg, tt.want)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		content string            // written to config.yaml unless file is set
		env     map[string]string // added to JARVIS_CONFIG and HOME
		want    []string          // substrings of the error, besides the path
	}{
		{"unknown top-level key", "log_level: info\nloglevel: debug\n", nil, []string{":2:", `unknown key "loglevel"`, "top level", "log_level"}},
		{"unknown nested key", "keyring:\n  backend: file\n  password: x\n", nil, []string{":3:", `unknown key "password"`, "under keyring", "backend, dir"}},
		{"unknown agent key", "agents:\n  a:\n    descripton: x\n", nil, []string{":3:", `"descripton"`, "agents entry"}},
		{"bad log level", "log_level: verbose\n", nil, []string{":1:", "verbose", "debug, info, warn, error"}},
		{"bad env log level", "", map[string]string{"JARVIS_LOG_LEVEL": "loud"}, []string{"JARVIS_LOG_LEVEL", "loud"}},
		{"bad backend", "keyring:\n  backend: vault\n", nil, []string{":2:", "vault", "secret-service"}},
		{"bad env backend", "", map[string]string{"JARVIS_KEYRING_BACKEND": "vault"}, []string{"JARVIS_KEYRING_BACKEND", "vault"}},
		{"bad env MCP init timeout", "", map[string]string{"JARVIS_MCP_INIT_TIMEOUT": "soon"}, []string{"JARVIS_MCP_INIT_TIMEOUT", "soon", "60s"}},
		{"zero env MCP init timeout", "", map[string]string{"JARVIS_MCP_INIT_TIMEOUT": "0s"}, []string{"JARVIS_MCP_INIT_TIMEOUT", "0s"}},
		{"bad tier value", "tiers:\n  builtin:wiki: maybe\n", nil, []string{":2:", "maybe", "safe, monitor or ask"}},
		{"bad tier kind", "tiers:\n  tool:wiki: safe\n", nil, []string{":2:", "tool:wiki", "KIND:NAME"}},
		{"tier without kind", "tiers:\n  wiki: safe\n", nil, []string{":2:", `"wiki"`}},
		{"tier without name", "tiers:\n  'mcp:': safe\n", nil, []string{":2:", `"mcp:"`}},
		{"bad agent name", "agents:\n  My Agent:\n    description: x\n", nil, []string{":2:", "My Agent"}},
		{"malformed yaml", "log_level: [info\n", nil, []string{"malformed YAML"}},
		{"bad indentation", "keyring:\n  backend: file\n dir: x\n", nil, []string{":2:", "malformed YAML"}},
		{"wrong type", "agents:\n  a:\n    allow: yes-please\n", nil, []string{":3:", "cannot unmarshal"}},
		{"not a mapping", "- a\n- b\n", nil, []string{":1:", "cannot unmarshal"}},
		{"binary garbage", "\x00\x01\x02\xff\xfe garbage", nil, []string{"NUL"}},
		{"invalid utf-8", "log_level: \x80\x81", nil, []string{"malformed YAML"}},
		{"two documents", "log_level: info\n---\nlog_level: debug\n", nil, []string{"more than one YAML document"}},
		{"client secret in the file", "signin:\n  google:\n    client_id: x\n    client_secret: hunter2\n", nil, []string{":4:", "never goes in the config file", "jarvisbot secrets set GOOGLE_OAUTH_CLIENT_SECRET"}},
		{"bad timezone", "timezone: Mars/Olympus\n", nil, []string{":1:", "Mars/Olympus", "Europe/Berlin"}},
		{"bad env timezone", "", map[string]string{"JARVIS_TIMEZONE": "Nowhere"}, []string{"JARVIS_TIMEZONE", "Nowhere"}},
		{"bad browser engine", "browser:\n  engine: firefox\n", nil, []string{":2:", "firefox", "go (the default) or chromium"}},
		{"bad env browser engine", "", map[string]string{"JARVIS_BROWSER_ENGINE": "lynx"}, []string{"JARVIS_BROWSER_ENGINE", "lynx"}},
		{"MCP endpoint beyond loopback without TLS", "mcp_server:\n  listen: 0.0.0.0:8765\n", nil, []string{"mcp_server", "tls_cert", "reverse proxy"}},
		{"env MCP endpoint beyond loopback", "", map[string]string{"JARVIS_MCP_LISTEN": "192.168.1.5:8765"}, []string{"JARVIS_MCP_LISTEN", "tls_cert"}},
		{"MCP endpoint not an address", "mcp_server:\n  listen: everywhere\n", nil, []string{"host:port"}},
		{"unknown provider name", "provider:\n  name: gemini\n", nil, []string{":1:", "gemini", "claude-code", "codex"}},
		{"command for an API provider", "agents:\n  a:\n    provider: {name: openai, command: /opt/codex}\n", nil, []string{"agents.a.provider", "command", "claude-code or codex"}},
		{"MCP endpoint half a TLS pair", "mcp_server:\n  listen: 127.0.0.1:8765\n  tls_cert: c.pem\n", nil, []string{"both tls_cert and tls_key"}},
		{"dashboard beyond loopback without TLS", "web:\n  listen: 0.0.0.0:8780\n", nil, []string{"web", "tls_cert", "reverse proxy"}},
		{"env dashboard beyond loopback", "", map[string]string{"JARVIS_WEB_LISTEN": "10.0.0.2:8780"}, []string{"JARVIS_WEB_LISTEN", "tls_cert"}},
		{"dashboard not an address", "web:\n  listen: anywhere\n", nil, []string{"host:port", "127.0.0.1:8780"}},
		{"dashboard URL not an address", "web:\n  url: jarvis.example.org\n", nil, []string{"url", "https://"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, path, err := loadIn(t, dir, tt.name, tt.content, tt.env)
			if err == nil {
				t.Fatal("Load succeeded")
			}
			if got := jarvisbot.ErrorCode(err); got != jarvisbot.EINVALID {
				t.Errorf("code = %s, want %s (%v)", got, jarvisbot.EINVALID, err)
			}
			if tt.env == nil && !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			mentions(t, err, tt.want...)
		})
	}
}

func TestLoadDirectoryInsteadOfFile(t *testing.T) {
	dir := t.TempDir()
	for _, e := range []map[string]string{
		{"JARVIS_CONFIG": dir, "HOME": dir},
		// At the default location too: a directory there is not "no file".
		{"XDG_CONFIG_HOME": dir, "HOME": dir},
	} {
		if err := os.MkdirAll(filepath.Join(dir, "jarvisbot", "config.yaml"), 0o700); err != nil {
			t.Fatal(err)
		}
		_, err := Load(env(e))
		if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "is a directory") {
			t.Errorf("env %v: error = %v, want EINVALID saying it is a directory", e, err)
		}
	}
}

func TestLoadEmptyFile(t *testing.T) {
	dir := t.TempDir()
	for _, content := range []string{"", "# only a comment\n", "---\n"} {
		path := writeFile(t, filepath.Join(dir, "config.yaml"), content)
		cfg, err := Load(env(map[string]string{"JARVIS_CONFIG": path, "HOME": dir}))
		if err != nil {
			t.Fatalf("content %q: %v", content, err)
		}
		if cfg.LogLevel != "info" || cfg.DataDir == "" || cfg.Path != path {
			t.Errorf("content %q: got %+v", content, cfg)
		}
	}
}

func TestLoadNeedsSomeDataDir(t *testing.T) {
	_, err := Load(env(map[string]string{}))
	if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "JARVIS_DATA_DIR") {
		t.Errorf("error = %v, want EINVALID naming JARVIS_DATA_DIR", err)
	}
}

func TestTemplateLoads(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "config.yaml"), string(Template()))
	cfg, err := Load(env(map[string]string{"JARVIS_CONFIG": path, "HOME": dir, "XDG_DATA_HOME": filepath.Join(dir, "share")}))
	if err != nil {
		t.Fatalf("the init template does not load: %v", err)
	}
	if cfg.DataDir != filepath.Join(dir, "share", "jarvisbot") || cfg.LogLevel != "info" || cfg.Keyring.Backend != "" {
		t.Errorf("template gives %+v, want the defaults", cfg)
	}
}

// Every key Config can hold is documented in the template, so the owner
// never has to read the source to learn a setting.
func TestTemplateDocumentsEveryKey(t *testing.T) {
	tmpl := string(Template())
	for _, typ := range []reflect.Type{reflect.TypeFor[Config](), reflect.TypeFor[Keyring](), reflect.TypeFor[Agent](), reflect.TypeFor[MCPServer](), reflect.TypeFor[Provider](), reflect.TypeFor[Budgets](), reflect.TypeFor[Budget]()} {
		for _, key := range yamlKeys(typ) {
			if !strings.Contains(tmpl, key+":") {
				t.Errorf("template does not mention %s key %q", typ.Name(), key)
			}
		}
	}
}

func FuzzLoad(f *testing.F) {
	f.Add(Template())
	for _, seed := range []string{
		"", "log_level: info", "agents:\n  a:\n    allow: [x]\n", "tiers:\n  mcp:x: ask\n",
		"keyring: {backend: file, dir: ~/k}", "- [", "&a [*a, *a]", "? a\n: b", "data_dir: !!binary AAAA",
		"mcp:\n  s:\n    card: &c [x]\n    aliases: *c\n", "\xff\x00", "log_level: info\n---\nx: y",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := parse("fuzz.yaml", data)
		if err != nil {
			if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
				t.Fatalf("error with code %s: %v", jarvisbot.ErrorCode(err), err)
			}
			if !strings.Contains(err.Error(), "fuzz.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for id, tier := range cfg.Tiers {
			if checkCapabilityID(id) != nil || (tier != "safe" && tier != "monitor" && tier != "ask") {
				t.Fatalf("accepted tier %q: %q", id, tier)
			}
		}
	})
}

// TestLoadTooLargeFileSizeLimit: a config file over the limit is refused
// with an error naming the file, its size and the limit, and it is not
// read: a sparse file of 2 GiB fails at once.
func TestLoadTooLargeFileSizeLimit(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int64{maxFileSize + 1<<20, 2 << 30} {
		path := filepath.Join(dir, "config.yaml")
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, size); err != nil {
			t.Fatal(err)
		}
		_, err := Load(env(map[string]string{"HOME": dir, EnvConfig: path}))
		if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
			t.Fatalf("size %d: %v, want EINVALID", size, err)
		}
		for _, want := range []string{path, "is too large", "bytes)", "the config file may be at most 1 MiB"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("size %d: error %q does not say %q", size, err, want)
			}
		}
	}
}

// TestSecretsNamesWhereX3: the keyring names the config refers to are
// listed with the key that names each, so that removing an MCP server
// never deletes a secret the config still needs.
func TestSecretsNamesWhereX3(t *testing.T) {
	cfg := Config{
		Provider: Provider{APIKeySecret: "ANTHROPIC_KEY"},
		Agents: map[string]Agent{
			"reviewer": {Provider: Provider{APIKeySecret: "OPENAI_KEY"}},
			"plain":    {},
		},
	}
	want := map[string]string{
		"ANTHROPIC_KEY": "the config (provider.api_key_secret)",
		"OPENAI_KEY":    "the config (agents.reviewer.provider.api_key_secret)",
	}
	if got := cfg.Secrets(); !reflect.DeepEqual(got, want) {
		t.Errorf("Secrets() = %v, want %v", got, want)
	}
	if got := (Config{}).Secrets(); len(got) != 0 {
		t.Errorf("a config naming no secret: %v", got)
	}
}

// TestStoreSelectsPostgresST2: store: in the file or JARVIS_DATABASE_URL
// (which wins) selects PostgreSQL; a wrong URL is an error naming the key
// that never quotes the URL, and a password in the file is refused.
func TestStoreSelectsPostgresST2(t *testing.T) {
	tests := []struct {
		name    string
		content string
		env     map[string]string
		store   string   // the Store loaded, when no error
		errs    []string // substrings of the error
	}{
		{name: "default is SQLite", store: ""},
		{name: "file", content: "store: postgres://jarvis@db:5432/jarvis\n", store: "postgres://jarvis@db:5432/jarvis"},
		{name: "env wins", content: "store: postgres://jarvis@db/jarvis\n", env: map[string]string{"JARVIS_DATABASE_URL": "postgresql://jarvis:s3cr3t@other/jarvis"},
			store: "postgresql://jarvis:s3cr3t@other/jarvis"},
		{name: "wrong scheme in file", content: "data_dir: /tmp/x\nstore: mysql://jarvis:s3cr3t@db/jarvis\n", errs: []string{":2:", "store:", `"mysql"`, "postgres://"}},
		{name: "not a URL in env", env: map[string]string{"JARVIS_DATABASE_URL": "jarvis:s3cr3t@db"}, errs: []string{"JARVIS_DATABASE_URL", "not a URL"}},
		{name: "wrong scheme in env", env: map[string]string{"JARVIS_DATABASE_URL": "mysql://jarvis:s3cr3t@db/jarvis"}, errs: []string{"JARVIS_DATABASE_URL", `"mysql"`}},
		{name: "unreadable env URL", env: map[string]string{"JARVIS_DATABASE_URL": "postgres://jarvis:s3cr3t@db:port/x"}, errs: []string{"JARVIS_DATABASE_URL", "cannot be read"}},
		{name: "no host", content: "store: postgres:///jarvis\n", errs: []string{"store:", "no host"}},
		{name: "password in file", content: "store: postgres://jarvis:s3cr3t@db/jarvis\n", errs: []string{":1:", "store:", "password", "JARVIS_DATABASE_URL"}},
		{name: "password parameter in file", content: "store: postgres://jarvis@db/jarvis?password=s3cr3t\n", errs: []string{"store:", "password"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			m := map[string]string{"HOME": dir, "JARVIS_CONFIG": writeFile(t, filepath.Join(dir, "config.yaml"), tt.content)}
			for k, v := range tt.env {
				m[k] = v
			}
			cfg, err := Load(env(m))
			if len(tt.errs) == 0 {
				if err != nil || cfg.Store != tt.store {
					t.Fatalf("Store = %q, %v; want %q", cfg.Store, err, tt.store)
				}
				return
			}
			if err == nil {
				t.Fatal("loaded")
			}
			for _, w := range tt.errs {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("error %q shows the password", err)
			}
		})
	}
}

// TestAgentChatBindingsA4: an agent may be bound to chats and whole
// platforms; the most specific binding wins; a bad entry or a chat bound
// to two agents is a clear error at load, not a silent fallback.
func TestAgentChatBindingsA4(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "config.yaml"), `
agents:
  inbox:
    description: a daily overview of my Gmail inbox
    chats: ["telegram:-100123", discord]
  builder:
    description: reviews pull requests
    chats: ["discord:555"]
`)
	cfg, err := Load(env(map[string]string{"JARVIS_CONFIG": path, "HOME": "/home/owner"}))
	if err != nil {
		t.Fatal(err)
	}
	for chat, want := range map[string]string{
		"telegram:-100123": "inbox",
		"telegram:42":      "",
		"discord:555":      "builder", // the chat itself beats its platform
		"discord:777":      "inbox",
		"console":          "",
	} {
		if got := cfg.AgentFor(chat); got != want {
			t.Errorf("AgentFor(%s) = %q, want %q", chat, got, want)
		}
	}
	for bad, want := range map[string]string{
		"agents:\n  a:\n    description: x\n    chats: [whatsapp:1]\n":                                                "telegram:CHAT_ID",
		"agents:\n  a:\n    description: x\n    chats: [\"telegram:\"]\n":                                             "missing",
		"agents:\n  a:\n    description: x\n    chats: [telegram]\n  b:\n    description: y\n    chats: [telegram]\n": "bound to agent a too",
	} {
		p := writeFile(t, filepath.Join(t.TempDir(), "config.yaml"), bad)
		if _, err := Load(env(map[string]string{"JARVIS_CONFIG": p, "HOME": "/home/owner"})); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", bad, err, want)
		}
	}
}

// TestImagesAndFilesQuotaCH4: provider.images is read as set, for the
// installation and an agent, and unset stays unset (known by the model);
// files.quota_mb defaults to 200 MB a chat, and a negative one keeps none.
func TestImagesAndFilesQuotaCH4(t *testing.T) {
	dir := t.TempDir()
	cfg, _, err := loadIn(t, dir, "set", `
provider: {name: openai, model: llava, base_url: "http://localhost:11434/v1", images: true}
agents:
  reader:
    description: Reads.
    provider: {images: false}
files:
  quota_mb: -1
`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := cfg.Provider.Images; p == nil || !*p {
		t.Errorf("provider.images = %v, want true", p)
	}
	if p := cfg.Agents["reader"].Provider.Images; p == nil || *p {
		t.Errorf("the agent's provider.images = %v, want false", p)
	}
	if q := cfg.Files.QuotaBytes(); q != 0 {
		t.Errorf("a negative quota keeps %d bytes, want none", q)
	}
	cfg, _, err = loadIn(t, dir, "unset", "provider: {name: anthropic}\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Provider.Images != nil || cfg.Files.QuotaBytes() != 200<<20 {
		t.Errorf("unset: images %v, quota %d; want nil and 200 MB", cfg.Provider.Images, cfg.Files.QuotaBytes())
	}
}

// TestMCPIdleTimeoutM3: unset, MCP servers idle out after the default;
// the file sets another duration or 0 (keep running); the environment
// wins, "off" included; a negative or unreadable value is refused with
// what to write.
func TestMCPIdleTimeoutM3(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, file string
		env        map[string]string
		want       time.Duration
		err        string
	}{
		{"unset", "log_level: info\n", nil, DefaultMCPIdleTimeout, ""},
		{"file", "mcp_idle_timeout: 90s\n", nil, 90 * time.Second, ""},
		{"file keeps running", "mcp_idle_timeout: 0s\n", nil, 0, ""},
		{"environment wins", "mcp_idle_timeout: 90s\n", map[string]string{EnvMCPIdleTimeout: "2h"}, 2 * time.Hour, ""},
		{"environment off", "", map[string]string{EnvMCPIdleTimeout: "off"}, 0, ""},
		{"environment zero", "", map[string]string{EnvMCPIdleTimeout: "0"}, 0, ""},
		{"negative", "mcp_idle_timeout: -1m\n", nil, 0, "mcp_idle_timeout is negative"},
		{"environment unreadable", "", map[string]string{EnvMCPIdleTimeout: "soon"}, 0, "JARVIS_MCP_IDLE_TIMEOUT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, _, err := loadIn(t, dir, strings.ReplaceAll(tc.name, " ", "-"), tc.file, tc.env)
			if tc.err != "" {
				if err == nil {
					t.Fatalf("loaded %v, want an error", cfg.MCPIdleTimeout)
				}
				mentions(t, err, tc.err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.IdleMCP(); got != tc.want {
				t.Errorf("IdleMCP() = %s, want %s", got, tc.want)
			}
		})
	}
}
