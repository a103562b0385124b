package plugins

import (
	"testing"
)

// FuzzManifest pins that no plugin.json makes the parser panic, that every
// problem names its file, and that an accepted manifest obeys the rules.
func FuzzManifest(f *testing.F) {
	f.Add([]byte(fullManifest))
	f.Add([]byte(manifestWith(`"author": {"name": "a"}, "keywords": ["x"], "extensions": {"dev.jarvisbot": {"signIn": {"method": "oauth", "scopes": ["a"]}, "tiers": {"mcp:a/b": "ask"}}}`)))
	f.Add([]byte(`{"name": "Git--Hub", "version": 2, "author": "me", "name": "x"}`))
	f.Add([]byte(`[1, {"a": null}]`))
	f.Add([]byte("{\"$schema\": \"\xff\"}"))
	f.Add([]byte(`{"extensions": {"dev.jarvisbot": {"logo": "./../x.png", "card": [""]}}} {}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _, probs := ParseManifest("plugin.json", data)
		failed := false
		for _, p := range probs {
			if p.File != "plugin.json" || p.Message == "" {
				t.Fatalf("problem without file or message: %#v", p)
			}
			failed = failed || !p.Warning
		}
		if !failed {
			if err := ValidName(m.Name); err != nil {
				t.Fatalf("accepted name %q: %v", m.Name, err)
			}
			if m.Schema != ManifestSchema {
				t.Fatalf("accepted $schema %q", m.Schema)
			}
		}
	})
}

// FuzzMCPConfig pins that no mcp.json makes the parser panic and that an
// accepted server is complete.
func FuzzMCPConfig(f *testing.F) {
	f.Add([]byte(fullMCP))
	f.Add([]byte(`{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "x"], "env": {"A_TOKEN": "${T}"}}}}`))
	f.Add([]byte(`{"mcpServers": {"c": {"url": "https://x.example/mcp?key=1#f", "headers": {"Authorization": "Bearer x", "authorization": ""}}}}`))
	f.Add([]byte(`{"mcpServers": {"s": {"type": "sse", "url": "http://[::1]:80/sse"}}, "x": 1}`))
	f.Add([]byte(`{"mcpServers": {"../x": {"type": "stdio", "command": "./../a", "cwd": "${PLUGIN_DATA}/../.."}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, probs := ParseMCPConfig("mcp.json", data)
		failed := false
		for _, p := range probs {
			if p.File != "mcp.json" || p.Message == "" {
				t.Fatalf("problem without file or message: %#v", p)
			}
			failed = failed || !p.Warning
		}
		if failed {
			return
		}
		if cfg == nil {
			t.Fatal("no configuration and no problem")
		}
		for name, s := range cfg.Servers {
			switch s.Type {
			case TransportStdio:
				if s.Command == "" || s.URL != "" {
					t.Fatalf("server %q accepted as %+v", name, s)
				}
			case TransportStreamableHTTP, TransportSSE:
				if err := httpsURL(s.URL, true); err != nil || s.Command != "" {
					t.Fatalf("server %q accepted as %+v", name, s)
				}
			default:
				t.Fatalf("server %q has type %q", name, s.Type)
			}
		}
	})
}
