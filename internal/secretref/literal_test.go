package secretref

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestLiteralsFindEverySecretX3: every place a literal credential hides in
// an MCP server's settings is found, with the span of the secret alone.
func TestLiteralsFindEverySecretX3(t *testing.T) {
	const tok = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	tests := []struct {
		name string
		srv  Settings
		want []string // "field key/index name = secret"
	}{
		{"env by name", Settings{Env: map[string]string{"DB_PASSWORD": "hunter2", "MODE": "x", "REF_TOKEN": "${T}"}}, []string{"env DB_PASSWORD DB_PASSWORD = hunter2"}},
		{"env by shape", Settings{Env: map[string]string{"WHATEVER": tok}}, []string{"env WHATEVER WHATEVER = " + tok}},
		{"header bearer", Settings{Headers: map[string]string{"Authorization": "Bearer  abc123", "X-Ok": "Bearer ${T}"}}, []string{"header Authorization Authorization = abc123"}},
		{"header api key", Settings{Headers: map[string]string{"X-Api-Key": "abc123"}}, []string{"header X-Api-Key X-Api-Key = abc123"}},
		{"flag equals", Settings{Args: []string{"srv", "--api-key=abc123"}}, []string{"arg 1 api-key = abc123"}},
		{"flag next", Settings{Args: []string{"--password", "hunter2", "--port", "80"}}, []string{"arg 1 password = hunter2"}},
		{"flag next is a reference", Settings{Args: []string{"--token", "${T}"}}, nil},
		{"flag next is a flag", Settings{Args: []string{"--token", "--verbose"}}, nil},
		{"shape alone", Settings{Args: []string{"run", tok}}, []string{"arg 1  = " + tok}},
		{"shape after a flag", Settings{Args: []string{"--config=" + tok}}, []string{"arg 0 config = " + tok}},
		{"bearer arg", Settings{Args: []string{"Bearer abc123"}}, []string{"arg 0  = abc123"}},
		{"header arg", Settings{Args: []string{"mcp-remote", "--header", "Authorization: Bearer abc123"}}, []string{"arg 2 Authorization = abc123"}},
		{"header arg plain", Settings{Args: []string{"X-Api-Key:abc123"}}, []string{"arg 0 X-Api-Key = abc123"}},
		{"query", Settings{URL: "https://x.example/mcp?mode=1&api_key=abc%2B123&token=${T}"}, []string{"url  api_key = abc%2B123"}},
		{"query by shape", Settings{URL: "https://x.example/mcp?q=" + tok}, []string{"url  q = " + tok}},
		{"user info", Settings{URL: "https://me:pw@x.example/mcp?token=t0k"}, []string{"url  Authorization = me:pw@", "url  token = t0k"}},
		{"url arg password", Settings{Args: []string{"postgresql://me:pa%40ss@db.example/app", "postgresql://me@db/x", "postgresql://me:${PG}@db/x"}}, []string{"arg 0 password = pa%40ss"}},
		{"url in a flag", Settings{Args: []string{"--dsn=mysql://root:hunter2@10.0.0.1:3306/db?sslmode=off&api_key=k1"}}, []string{"arg 0 password = hunter2", "arg 0 api_key = k1"}},
		{"url arg query", Settings{Args: []string{"https://x.example/sse?token=t0k&page=2"}}, []string{"arg 0 token = t0k"}},
		{"connection string", Settings{Args: []string{"host=db password=hunter2 dbname=app", "Server=x;Password='p w';Token=${T}"}}, []string{"arg 0 password = hunter2", "arg 1 Password = p w"}},
		{"env-style arg", Settings{Args: []string{"env", "API_KEY=abc123", "MODE=fast"}}, []string{"arg 1 API_KEY = abc123"}},
		{"nothing", Settings{Args: []string{"-y", "@modelcontextprotocol/server-github"}, Env: map[string]string{"GITHUB_TOKEN": "${GITHUB_TOKEN}"}, URL: "https://x.example/mcp?page=2"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, l := range Literals(tt.srv) {
				var text, where string
				switch l.Field {
				case FieldEnv:
					text, where = tt.srv.Env[l.Key], l.Key
				case FieldHeader:
					text, where = tt.srv.Headers[l.Key], l.Key
				case FieldArg:
					text, where = tt.srv.Args[l.Index], fmt.Sprint(l.Index)
				case FieldURL:
					text = tt.srv.URL
				}
				got = append(got, fmt.Sprintf("%s %s %s = %s", l.Field, where, l.Name, text[l.Start:l.End]))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// FuzzLiterals pins that no settings make Literals panic, that every span
// lies inside its field, and that the settings with each span replaced by a
// reference hold no literal any more (what `mcp add` relies on).
func FuzzLiterals(f *testing.F) {
	f.Add("--api-key=abc123", "Authorization: Bearer abc", "Bearer x", "https://me:pw@x.example/mcp?api_key=k&token=${T}")
	f.Add("--token", "sk-abcdefghijklmnopqrstuvwxyz", " Bearer  y ", "http://x/?a=%zz&password=p")
	f.Add("--dsn=postgresql://me:pw@db/x?token=t", "host=db password='p w'", "Bearer z", "")
	f.Fuzz(func(t *testing.T, a1, a2, header, u string) {
		s := Settings{Args: []string{a1, a2}, Env: map[string]string{"API_TOKEN": a2}, Headers: map[string]string{"Authorization": header}, URL: u}
		moved := Settings{Args: slices.Clone(s.Args), Env: maps.Clone(s.Env), Headers: maps.Clone(s.Headers), URL: s.URL}
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
