package plugins

import (
	"maps"
	"slices"
	"strings"
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

// FuzzLiterals pins that no settings make Literals panic, that every span
// lies inside its field, and that the settings with each span replaced by a
// reference hold no literal any more (what `mcp add` relies on).
func FuzzLiterals(f *testing.F) {
	f.Add("--api-key=abc123", "Authorization: Bearer abc", "Bearer x", "https://me:pw@x.example/mcp?api_key=k&token=${T}")
	f.Add("--token", "sk-abcdefghijklmnopqrstuvwxyz", " Bearer  y ", "http://x/?a=%zz&password=p")
	f.Add("--dsn=postgresql://me:pw@db/x?token=t", "host=db password='p w'", "Bearer z", "")
	f.Fuzz(func(t *testing.T, a1, a2, header, u string) {
		s := MCPServer{Args: []string{a1, a2}, Env: map[string]string{"API_TOKEN": a2}, Headers: map[string]string{"Authorization": header}, URL: u}
		moved := MCPServer{Args: slices.Clone(s.Args), Env: maps.Clone(s.Env), Headers: maps.Clone(s.Headers), URL: s.URL}
		lits := Literals(s)
		for _, l := range lits {
			var text string
			switch l.Field {
			case FieldEnv:
				text = s.Env[l.Key]
			case FieldHeader:
				text = s.Headers[l.Key]
			case FieldArg:
				text = s.Args[l.Index]
			case FieldURL:
				text = s.URL
			}
			if l.Start < 0 || l.End > len(text) || l.Start > l.End {
				t.Fatalf("span %d:%d outside %q", l.Start, l.End, text)
			}
		}
		// Replace from the last span to the first, as mcp add does.
		for i := len(lits) - 1; i >= 0; i-- {
			l := lits[i]
			ref := "${R}"
			if l.UserInfo {
				ref = ""
			}
			cut := func(text string) string { return text[:l.Start] + ref + text[l.End:] }
			switch l.Field {
			case FieldEnv:
				moved.Env[l.Key] = cut(moved.Env[l.Key])
			case FieldHeader:
				moved.Headers[l.Key] = cut(moved.Headers[l.Key])
			case FieldArg:
				moved.Args[l.Index] = cut(moved.Args[l.Index])
			case FieldURL:
				moved.URL = cut(moved.URL)
			}
		}
		if left := Literals(moved); len(left) > 0 && !strings.Contains(a1+a2+header+u, "${") {
			t.Fatalf("after moving %+v, still literal: %+v in %+v", lits, left, moved)
		}
	})
}
