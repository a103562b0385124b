package appkey

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
)

func TestEndpointM4(t *testing.T) {
	for listen, want := range map[string]string{
		"127.0.0.1:8765": "http://127.0.0.1:8765/mcp",
		"0.0.0.0:9000":   "http://127.0.0.1:9000/mcp",
		":9000":          "http://127.0.0.1:9000/mcp",
		"[::]:9000":      "http://127.0.0.1:9000/mcp",
		"[::1]:8765":     "http://[::1]:8765/mcp",
		"localhost:8765": "http://localhost:8765/mcp",
	} {
		if got := Endpoint(listen); got != want {
			t.Errorf("Endpoint(%q) = %q, want %q", listen, got, want)
		}
	}
}

// TestClientConfigRefersToTheKeyM4: each client's snippet is valid in its
// format, points at the endpoint, and refers to the key the way that
// client can (environment, input prompt), or holds a placeholder where the
// client expands nothing (Claude Desktop).
func TestClientConfigRefersToTheKeyM4(t *testing.T) {
	const url = "http://127.0.0.1:8765/mcp"
	f := ConfigFor{App: "laptop", URL: url, Command: "jarvisbot", Env: map[string]string{"JARVIS_CONFIG": "/home/o/.config/jarvisbot/config.yaml"}}
	type server struct {
		Type    string            `json:"type"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
	}
	type config struct {
		MCPServers map[string]server `json:"mcpServers"`
		Servers    map[string]server `json:"servers"`
		Inputs     []struct {
			Type, ID string
			Password bool
		} `json:"inputs"`
	}
	for _, tc := range []struct {
		client string
		check  func(t *testing.T, c config)
	}{
		{ClientClaudeDesktop, func(t *testing.T, c config) {
			s := c.MCPServers[ServerName]
			if s.Command != "jarvisbot" || strings.Join(s.Args, " ") != "mcp serve" || !strings.HasPrefix(s.Env[EnvKey], "PASTE-") || s.Env["JARVIS_CONFIG"] == "" {
				t.Errorf("claude-desktop server %+v", s)
			}
		}},
		{ClientClaudeCode, func(t *testing.T, c config) {
			s := c.MCPServers[ServerName]
			if s.Type != "http" || s.URL != url || s.Headers["Authorization"] != "Bearer ${JARVIS_APP_KEY}" {
				t.Errorf("claude-code server %+v", s)
			}
		}},
		{ClientCursor, func(t *testing.T, c config) {
			s := c.MCPServers[ServerName]
			if s.URL != url || s.Headers["Authorization"] != "Bearer ${env:JARVIS_APP_KEY}" {
				t.Errorf("cursor server %+v", s)
			}
		}},
		{ClientVSCode, func(t *testing.T, c config) {
			s := c.Servers[ServerName]
			if s.Type != "http" || s.URL != url || len(c.Inputs) != 1 {
				t.Fatalf("vscode config %+v", c)
			}
			in := c.Inputs[0]
			if in.Type != "promptString" || !in.Password || s.Headers["Authorization"] != "Bearer ${input:"+in.ID+"}" {
				t.Errorf("vscode input %+v, header %q", in, s.Headers["Authorization"])
			}
		}},
	} {
		t.Run(tc.client, func(t *testing.T) {
			sn, err := ClientConfig(tc.client, f)
			if err != nil {
				t.Fatal(err)
			}
			if sn.Format != "json" || sn.Where == "" || len(sn.Then) == 0 {
				t.Errorf("snippet %+v", sn)
			}
			var c config
			if err := json.Unmarshal([]byte(sn.Text), &c); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, sn.Text)
			}
			tc.check(t, c)
		})
	}
	t.Run(ClientCodex, func(t *testing.T) {
		sn, err := ClientConfig(ClientCodex, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range []string{"[mcp_servers.jarvisbot]", `url = "` + url + `"`, `bearer_token_env_var = "JARVIS_APP_KEY"`} {
			if !strings.Contains(sn.Text, line+"\n") {
				t.Errorf("codex snippet lacks %q:\n%s", line, sn.Text)
			}
		}
		if sn.Format != "toml" || strings.Contains(sn.Text, "bearer_token =") {
			t.Errorf("codex snippet %+v", sn)
		}
	})
	if _, err := ClientConfig("emacs", f); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "claude-desktop, claude-code, cursor, vscode, codex") {
		t.Errorf("unknown client: %v", err)
	}
}
