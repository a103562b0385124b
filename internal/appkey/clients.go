package appkey

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"strings"

	"github.com/jarvisbot/jarvisbot"
)

// ServerName is what the snippets call jarvisbot in each client: the
// client shows its tools under it (Claude Code's mcp__jarvisbot__status).
const ServerName = "jarvisbot"

// Endpoint returns the MCP URL clients use for a listen address. An
// address that listens on every interface is reached through loopback.
func Endpoint(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		host, port = listen, ""
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	if port != "" {
		host = net.JoinHostPort(host, port)
	}
	return "http://" + host + "/mcp"
}

// The MCP clients a snippet can be written for.
const (
	ClientClaudeDesktop = "claude-desktop"
	ClientClaudeCode    = "claude-code"
	ClientCursor        = "cursor"
	ClientVSCode        = "vscode"
	ClientCodex         = "codex"
)

// Clients lists the clients ClientConfig knows, as the usage shows them.
func Clients() []string {
	return []string{ClientClaudeDesktop, ClientClaudeCode, ClientCursor, ClientVSCode, ClientCodex}
}

// ConfigFor is what a snippet is written for.
type ConfigFor struct {
	App string // the app's name, as `apps add` took it
	URL string // the MCP endpoint (Endpoint)
	// Command launches jarvisbot, for clients that start a stdio server
	// (Claude Desktop): its path, or "jarvisbot" when it is on PATH.
	Command string
	// Env is what a launched `jarvisbot mcp serve` needs besides the key
	// to find the service (JARVIS_CONFIG); never a secret.
	Env map[string]string
}

// Snippet is one client's configuration for jarvisbot. Text never holds
// the key: it refers to it through the environment or the client's own
// prompt, or, for a client that can do neither, holds a placeholder.
type Snippet struct {
	Client string
	Format string // json or toml
	Where  string // the file the snippet goes in
	Text   string
	// Then says what else the owner does, a sentence a line.
	Then []string
}

// ClientConfig writes the snippet that connects client to jarvisbot with
// the key of app f.App.
func ClientConfig(client string, f ConfigFor) (Snippet, error) {
	switch client {
	case ClientClaudeDesktop:
		return claudeDesktop(f)
	case ClientClaudeCode:
		return claudeCode(f)
	case ClientCursor:
		return cursor(f)
	case ClientVSCode:
		return vscode(f)
	case ClientCodex:
		return codex(f)
	}
	return Snippet{}, jarvisbot.Errorf(jarvisbot.EINVALID, "unknown client %q: use %s", client, strings.Join(Clients(), ", "))
}

// bearerOf is the Authorization header with the key as ref, a client's
// own reference syntax.
func bearerOf(ref string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + ref}
}

// claudeDesktop: claude_desktop_config.json launches stdio servers from
// "mcpServers" (fields command, args, env: Claude Desktop's). It expands
// no variables in env, and starts servers without the shell's environment,
// so the key is pasted into the file by the owner: the snippet holds a
// placeholder and says so.
func claudeDesktop(f ConfigFor) (Snippet, error) {
	env := map[string]string{EnvKey: "PASTE-THE-KEY-FROM-jarvisbot-apps-add-" + f.App}
	for k, v := range f.Env {
		env[k] = v
	}
	type server struct {
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
	}
	text, err := indentJSON(map[string]any{"mcpServers": map[string]server{
		ServerName: {Command: f.Command, Args: []string{"mcp", "serve"}, Env: env},
	}})
	return Snippet{
		Client: ClientClaudeDesktop, Format: "json", Text: text,
		Where: "claude_desktop_config.json (Settings > Developer > Edit Config; macOS ~/Library/Application Support/Claude/, Windows %APPDATA%\\Claude\\)",
		Then: []string{
			"Claude Desktop passes env values as written: replace the placeholder with the key `jarvisbot apps add " + f.App + "` printed.",
			"It starts `jarvisbot mcp serve`, which forwards to the running service; put jarvisbot's full path in \"command\" if Claude Desktop does not find it.",
			"Restart Claude Desktop.",
		},
	}, err
}

// claudeCode: a project's .mcp.json, "mcpServers" with type "http", url and
// headers (Claude Code's fields); Claude Code expands ${NAME} in url and
// headers from its environment.
func claudeCode(f ConfigFor) (Snippet, error) {
	type server struct {
		Type    string            `json:"type"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	text, err := indentJSON(map[string]any{"mcpServers": map[string]server{
		ServerName: {Type: "http", URL: f.URL, Headers: bearerOf("${" + EnvKey + "}")},
	}})
	return Snippet{
		Client: ClientClaudeCode, Format: "json", Text: text,
		Where: ".mcp.json in the project's folder",
		Then: []string{
			"Set " + EnvKey + " (export " + EnvKey + "=KEY) in the shell that starts claude; Claude Code fills in ${" + EnvKey + "}.",
			"Check with: claude mcp list",
		},
	}, err
}

// cursor: ~/.cursor/mcp.json, "mcpServers" with url and headers (Cursor's
// fields; it tells streamable HTTP from SSE itself) and ${env:NAME} for a
// variable of its environment.
func cursor(f ConfigFor) (Snippet, error) {
	type server struct {
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	text, err := indentJSON(map[string]any{"mcpServers": map[string]server{
		ServerName: {URL: f.URL, Headers: bearerOf("${env:" + EnvKey + "}")},
	}})
	return Snippet{
		Client: ClientCursor, Format: "json", Text: text,
		Where: "~/.cursor/mcp.json (every project) or .cursor/mcp.json (one project)",
		Then: []string{
			"Set " + EnvKey + " in the environment Cursor starts in; Cursor fills in ${env:" + EnvKey + "}.",
			"Restart Cursor, then check the server under Settings > MCP.",
		},
	}, err
}

// vscode: .vscode/mcp.json, "servers" with type "http", url and headers,
// and "inputs" (VS Code's fields): a promptString with password true asks
// for the key once and VS Code keeps it in its secret storage;
// ${input:ID} refers to it.
func vscode(f ConfigFor) (Snippet, error) {
	const id = "jarvisbot-key"
	type input struct {
		Type        string `json:"type"`
		ID          string `json:"id"`
		Description string `json:"description"`
		Password    bool   `json:"password"`
	}
	type server struct {
		Type    string            `json:"type"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	text, err := indentJSON(struct {
		Inputs  []input           `json:"inputs"`
		Servers map[string]server `json:"servers"`
	}{
		Inputs: []input{{Type: "promptString", ID: id, Password: true,
			Description: "jarvisbot app key of " + f.App + " (printed by jarvisbot apps add " + f.App + ")"}},
		Servers: map[string]server{ServerName: {Type: "http", URL: f.URL, Headers: bearerOf("${input:" + id + "}")}},
	})
	return Snippet{
		Client: ClientVSCode, Format: "json", Text: text,
		Where: ".vscode/mcp.json in the workspace (or MCP: Open User Configuration)",
		Then: []string{
			"VS Code asks for the key when it first starts the server, and keeps it in its secret storage.",
		},
	}, err
}

// codex: ~/.codex/config.toml, one [mcp_servers.NAME] table with url and
// bearer_token_env_var (Codex's fields: it sends the variable's value as
// the bearer token and refuses a token written in the file).
func codex(f ConfigFor) (Snippet, error) {
	var b strings.Builder
	b.WriteString("# ~/.codex/config.toml\n")
	fmt.Fprintf(&b, "[mcp_servers.%s]\n", ServerName)
	fmt.Fprintf(&b, "url = %s\n", tomlString(f.URL))
	fmt.Fprintf(&b, "bearer_token_env_var = %s\n", tomlString(EnvKey))
	return Snippet{
		Client: ClientCodex, Format: "toml", Text: b.String(),
		Where: "~/.codex/config.toml (or .codex/config.toml in a trusted project)",
		Then: []string{
			"Set " + EnvKey + " in the environment Codex starts in.",
			"Check with: codex mcp list",
		},
	}, nil
}

func indentJSON(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "", jarvisbot.Errorf(jarvisbot.EINTERNAL, "writing the client's config: %w", err)
	}
	return b.String(), nil
}

// tomlString quotes s as a TOML basic string: JSON's escapes (\" \\ \n
// \uXXXX) are TOML's too.
func tomlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}
