package wiki

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
)

// newWiki returns a wiki in a fresh directory that does not exist yet, so
// that every test also covers creating it.
func newWiki(t testing.TB) (*Wiki, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "wiki")
	return New(dir), dir
}

func mustWrite(t *testing.T, w *Wiki, name, body string) {
	t.Helper()
	if _, err := w.Write(context.Background(), name, body); err != nil {
		t.Fatalf("Write(%q): %v", name, err)
	}
}

func wantCode(t *testing.T, err error, code jarvisbot.Code) {
	t.Helper()
	if got := jarvisbot.ErrorCode(err); got != code {
		t.Fatalf("error %v: code %q, want %q", err, got, code)
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	tests := []struct {
		name, write, read, canonical, body, title string
	}{
		{"titled", "projects/garden", "projects/garden", "projects/garden", "# Garden plan\n\nTomatoes.\n", "Garden plan"},
		{"untitled uses name", "todo", "todo", "todo", "buy milk\n", "todo"},
		{"md suffix stripped", "notes/ideas.md", "notes/ideas", "notes/ideas", "x", "notes/ideas"},
		{"read with suffix", "recipes", "recipes.MD", "recipes", "# Recipes", "Recipes"},
		{"spaces and umlauts", "Familie/Herr Müller", " Familie/Herr Müller ", "Familie/Herr Müller", "# Müller\ncall", "Müller"},
		{"heading after code fence", "code", "code", "code", "```sh\n# not a title\n```\n# Real\n", "Real"},
		{"empty body", "empty", "empty", "empty", "", "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, dir := newWiki(t)
			ctx := context.Background()
			wn, err := w.Write(ctx, tt.write, tt.body)
			if err != nil {
				t.Fatal(err)
			}
			if wn.Name != tt.canonical || wn.Title != tt.title {
				t.Errorf("Write returned %q/%q, want %q/%q", wn.Name, wn.Title, tt.canonical, tt.title)
			}
			n, err := w.Read(ctx, tt.read)
			if err != nil {
				t.Fatal(err)
			}
			if n.Name != tt.canonical || n.Title != tt.title || n.Body != tt.body || n.Modified.IsZero() {
				t.Errorf("Read = %+v, want name %q title %q body %q", n, tt.canonical, tt.title, tt.body)
			}
			fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(tt.canonical)+".md"))
			if err != nil {
				t.Fatalf("note file: %v", err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("note file mode %v, want 0600", fi.Mode().Perm())
			}
			di, err := os.Stat(dir)
			if err != nil || di.Mode().Perm() != 0o700 {
				t.Errorf("wiki dir: %v, mode %v, want 0700", err, di.Mode().Perm())
			}
		})
	}
}

func TestWriteOverwritesAtomically(t *testing.T) {
	w, dir := newWiki(t)
	mustWrite(t, w, "a/b", "first version, rather long\n")
	mustWrite(t, w, "a/b", "second\n")
	n, err := w.Read(context.Background(), "a/b")
	if err != nil || n.Body != "second\n" {
		t.Fatalf("Read = %q, %v; want the second version", n.Body, err)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "b.md" {
		t.Errorf("folder holds %v, want only b.md (no temporary files left)", entries)
	}
}

func TestWriteRejectsBodyOverLimit(t *testing.T) {
	w, _ := newWiki(t)
	ctx := context.Background()
	if _, err := w.Write(ctx, "big", strings.Repeat("x", MaxBody)); err != nil {
		t.Fatalf("a body of exactly MaxBody: %v", err)
	}
	_, err := w.Write(ctx, "big", strings.Repeat("x", MaxBody+1))
	wantCode(t, err, jarvisbot.EINVALID)
	_, err = w.Append(ctx, "big", "more")
	wantCode(t, err, jarvisbot.EINVALID)
}

func TestAppend(t *testing.T) {
	tests := []struct {
		name    string
		start   *string
		appends []string
		want    string
	}{
		{"creates the note", nil, []string{"first"}, "first\n"},
		{"adds a line break", ptr("# Log\nline"), []string{"next"}, "# Log\nline\nnext\n"},
		{"keeps existing break", ptr("a\n"), []string{"b\n", "c"}, "a\nb\nc\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, _ := newWiki(t)
			ctx := context.Background()
			if tt.start != nil {
				mustWrite(t, w, "log", *tt.start)
			}
			for _, a := range tt.appends {
				if _, err := w.Append(ctx, "log", a); err != nil {
					t.Fatal(err)
				}
			}
			n, err := w.Read(ctx, "log")
			if err != nil || n.Body != tt.want {
				t.Errorf("body %q, %v; want %q", n.Body, err, tt.want)
			}
		})
	}
	w, _ := newWiki(t)
	_, err := w.Append(context.Background(), "log", "")
	wantCode(t, err, jarvisbot.EINVALID)
}

func ptr(s string) *string { return &s }

func TestListSortedByName(t *testing.T) {
	w, dir := newWiki(t)
	ctx := context.Background()
	if notes, err := w.List(ctx); err != nil || len(notes) != 0 {
		t.Fatalf("List of a wiki never written = %v, %v; want empty", notes, err)
	}
	for _, n := range []string{"zeta", "alpha/two", "alpha/one", "Beta", "alpha"} {
		mustWrite(t, w, n, "# T "+n+"\nbody")
	}
	// Files the wiki cannot address are left out.
	for _, f := range []string{".hidden.md", "notes.txt", "x.md.md", ".git/config.md"} {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	notes, err := w.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range notes {
		names = append(names, n.Name)
		if n.Body != "" || n.Title != "T "+n.Name {
			t.Errorf("note %q: title %q body %q; want title and no body", n.Name, n.Title, n.Body)
		}
	}
	want := []string{"Beta", "alpha", "alpha/one", "alpha/two", "zeta"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("List names = %v, want %v", names, want)
	}
}

func TestSearch(t *testing.T) {
	w, _ := newWiki(t)
	notes := map[string]string{
		"people/mueller":  "# Herr Müller\nNeighbour, lends the ladder.\n",
		"garden":          "# Garden\nTomatoes and basil. Ask Müller about the ladder.\n",
		"shopping":        "# Shopping\nbasil, tomatoes, bread\n",
		"recipes/pesto":   "# Pesto\nbasil, garlic, pine nuts\n",
		"people/strasser": "# Straße\nnothing to see\n",
	}
	for n, b := range notes {
		mustWrite(t, w, n, b)
	}
	tests := []struct {
		query string
		want  []string
	}{
		{"muller", []string{"people/mueller", "garden"}},       // title hit above body hit
		{"müller", []string{"people/mueller", "garden"}},       // same with the umlaut
		{"MÜLLER", []string{"people/mueller", "garden"}},       // and in capitals
		{"Mu\u0308ller", []string{"people/mueller", "garden"}}, // decomposed umlaut
		{"basil tomatoes", []string{"garden", "shopping", "recipes/pesto"}},
		{"pesto basil", []string{"recipes/pesto", "garden", "shopping"}},
		{"strasse", []string{"people/strasser"}},
		{"lad", []string{"garden", "people/mueller"}}, // inside words, ties by name
		{"nowhere", nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			hits, err := w.Search(context.Background(), tt.query, 0)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hits {
				got = append(got, h.Name)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Search(%q) = %v, want %v", tt.query, got, tt.want)
			}
		})
	}

	hits, err := w.Search(context.Background(), "müller", 1)
	if err != nil || len(hits) != 1 {
		t.Fatalf("limit 1: %v, %v", hits, err)
	}
	if hits[0].Title != "Herr Müller" || !strings.Contains(hits[0].Snippet, "Müller") {
		t.Errorf("hit %+v: want title and a snippet showing the match", hits[0])
	}
	_, err = w.Search(context.Background(), "  ?! ", 0)
	wantCode(t, err, jarvisbot.EINVALID)
}

func TestSearchSnippetAroundFirstHit(t *testing.T) {
	w, _ := newWiki(t)
	body := "# Long\n" + strings.Repeat("filler words here ", 40) + "the secret Käse is hidden " + strings.Repeat("more text after ", 40)
	mustWrite(t, w, "long", body)
	hits, err := w.Search(context.Background(), "kase", 0)
	if err != nil || len(hits) != 1 {
		t.Fatalf("Search = %v, %v", hits, err)
	}
	s := hits[0].Snippet
	if !strings.Contains(s, "Käse") || !strings.HasPrefix(s, "…") || !strings.HasSuffix(s, "…") || len(s) > 200 || strings.Contains(s, "\n") {
		t.Errorf("snippet %q: want one line of under 200 bytes around Käse, cut on both sides", s)
	}
}

func TestSearchHonoursCancellation(t *testing.T) {
	w, _ := newWiki(t)
	mustWrite(t, w, "a", "x")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := w.Search(ctx, "x", 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Search on a cancelled context: %v, want context.Canceled", err)
	}
	if _, err := w.List(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("List on a cancelled context: %v, want context.Canceled", err)
	}
}

func TestReadMissingHintsCloseNames(t *testing.T) {
	w, _ := newWiki(t)
	ctx := context.Background()
	_, err := w.Read(ctx, "anything")
	wantCode(t, err, jarvisbot.ENOTFOUND)
	mustWrite(t, w, "projects/garden", "x")
	mustWrite(t, w, "recipes", "x")
	tests := []struct {
		name, hint string
	}{
		{"projects/gardn", `"projects/garden"`},
		{"garden", `"projects/garden"`},
		{"Projects/Garden", `"projects/garden"`},
		{"zebra", "list or search"},
	}
	for _, tt := range tests {
		_, err := w.Read(ctx, tt.name)
		wantCode(t, err, jarvisbot.ENOTFOUND)
		if !strings.Contains(err.Error(), tt.hint) {
			t.Errorf("Read(%q): %q, want a hint containing %s", tt.name, err, tt.hint)
		}
	}
}

func TestDelete(t *testing.T) {
	w, dir := newWiki(t)
	ctx := context.Background()
	mustWrite(t, w, "a/b/c", "x")
	mustWrite(t, w, "a/keep", "x")
	if err := w.Delete(ctx, "a/b/c"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a", "b")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("empty folder a/b left behind: %v", err)
	}
	if _, err := w.Read(ctx, "a/keep"); err != nil {
		t.Errorf("sibling note gone: %v", err)
	}
	wantCode(t, w.Delete(ctx, "a/b/c"), jarvisbot.ENOTFOUND)
}

func TestHostileNamesRejected(t *testing.T) {
	w, dir := newWiki(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, w, "ok", "x") // creates dir
	if err := os.Symlink(outside, filepath.Join(dir, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "leak.md")); err != nil {
		t.Fatal(err)
	}
	names := []string{
		"../x", "/etc/passwd", "a/../../b", `a\b`, "", "   ", "x\x00y", "..", ".", "./x",
		".hidden", "a//b", "a/", " /x", "a/ b", "a:b", "a*b", "\xff", ".md",
		strings.Repeat("n", MaxName+1), "x\x1b[2Jy", "x\u202ey", "x\u200by", "x\ny",
		"escape/secret", "escape/new", "leak",
	}
	ctx := context.Background()
	for _, n := range names {
		t.Run(n, func(t *testing.T) {
			_, err := w.Read(ctx, n)
			wantCode(t, err, jarvisbot.EINVALID)
			_, err = w.Write(ctx, n, "pwned")
			wantCode(t, err, jarvisbot.EINVALID)
			_, err = w.Append(ctx, n, "pwned")
			wantCode(t, err, jarvisbot.EINVALID)
			wantCode(t, w.Delete(ctx, n), jarvisbot.EINVALID)
		})
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Errorf("outside directory holds %v, want only secret.md", entries)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret.md")); string(b) != "secret" {
		t.Errorf("outside file changed to %q", b)
	}
	notes, err := w.List(ctx)
	if err != nil || len(notes) != 1 || notes[0].Name != "ok" {
		t.Errorf("List = %v, %v; want only ok (escaping links left out)", notes, err)
	}
	hits, err := w.Search(ctx, "secret", 0)
	if err != nil || len(hits) != 0 {
		t.Errorf("Search reached outside the wiki: %v, %v", hits, err)
	}
}

// TestReadRefusesNoteOverLimitSizeLimit: a note file put in the wiki by
// hand that is larger than a note may be is refused with its size, not
// read into memory; listing and search leave it out.
func TestReadRefusesNoteOverLimitSizeLimit(t *testing.T) {
	w, dir := newWiki(t)
	mustWrite(t, w, "ok", "small")
	path := filepath.Join(dir, "huge.md")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 2<<30); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err := w.Read(ctx, "huge")
	wantCode(t, err, jarvisbot.EINVALID)
	if !strings.Contains(err.Error(), "is too large: 2 GiB") || !strings.Contains(err.Error(), "at most 1 MiB") {
		t.Errorf("error %q does not give the size and the limit", err)
	}
	if notes, err := w.List(ctx); err != nil || len(notes) != 1 {
		t.Errorf("List = %v, %v; want only ok", notes, err)
	}
	if _, err := w.Append(ctx, "huge", "more"); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("Append to a note over the limit: %v", err)
	}
}

func TestSymlinkInsideIsFollowed(t *testing.T) {
	w, dir := newWiki(t)
	mustWrite(t, w, "real/note", "# Inside\n")
	if err := os.Symlink("real", filepath.Join(dir, "alias")); err != nil {
		t.Fatal(err)
	}
	if n, err := w.Read(context.Background(), "alias/note"); err != nil || n.Title != "Inside" {
		t.Errorf("Read through a link inside the wiki = %+v, %v", n, err)
	}
}

func TestCapability(t *testing.T) {
	w, _ := newWiki(t)
	c := w.Capability()
	if c.ID != "builtin:wiki" || c.Kind != catalog.KindBuiltin || c.Source != "builtin" || c.Name != "wiki" || !c.Connected || c.Description == "" {
		t.Errorf("capability %+v", c)
	}
	if c.Tier != catalog.TierMonitor {
		t.Errorf("tier %q, want monitor", c.Tier)
	}
	wantTiers := map[string]catalog.Tier{
		"read": catalog.TierSafe, "search": catalog.TierSafe, "list": catalog.TierSafe,
		"write": catalog.TierMonitor, "append": catalog.TierMonitor,
	}
	if !reflect.DeepEqual(c.ActionTiers, wantTiers) {
		t.Errorf("ActionTiers = %v, want %v", c.ActionTiers, wantTiers)
	}
	var s struct {
		Type       string
		Properties map[string]struct {
			Type string
			Enum []string
		}
		Required []string
	}
	if err := json.Unmarshal(c.InputSchema, &s); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, c.InputSchema); err != nil || !bytes.Equal(compact.Bytes(), c.InputSchema) {
		t.Errorf("schema is not compact: %s", c.InputSchema)
	}
	if !bytes.Equal(c.InputSchema, w.Capability().InputSchema) {
		t.Error("schema bytes differ between calls")
	}
	if s.Type != "object" || !reflect.DeepEqual(s.Required, []string{"action"}) {
		t.Errorf("schema type %q required %v", s.Type, s.Required)
	}
	for _, p := range []string{"action", "name", "query", "body", "text", "limit"} {
		if _, ok := s.Properties[p]; !ok {
			t.Errorf("schema lacks property %q", p)
		}
	}
	enum := s.Properties["action"].Enum
	if !reflect.DeepEqual(enum, []string{"read", "search", "list", "write", "append"}) {
		t.Errorf("action enum %v", enum)
	}
	for _, a := range enum {
		if _, ok := c.ActionTiers[a]; !ok {
			t.Errorf("action %q has no tier", a)
		}
	}
}

func TestCall(t *testing.T) {
	w, _ := newWiki(t)
	ctx := context.Background()
	steps := []struct {
		name, args string
		want       []string // substrings of the result, or of the error
		code       jarvisbot.Code
	}{
		{"list empty", `{"action":"list"}`, []string{"no notes"}, ""},
		{"write", `{"action":"write","name":"people/mueller","body":"# Herr Müller\nphone 123\n"}`, []string{"saved people/mueller (25 bytes)"}, ""},
		{"write text alias", `{"action":"write","name":"b.md","text":"hi"}`, []string{"saved b (2 bytes)"}, ""},
		{"append", `{"action":"append","name":"people/mueller","text":"birthday in May"}`, []string{"appended 15 bytes to people/mueller"}, ""},
		{"read", `{"action":"read","name":"people/mueller"}`, []string{"note people/mueller", "# Herr Müller\nphone 123\nbirthday in May\n"}, ""},
		{"search", `{"action":"search","query":"muller","limit":5}`, []string{`1 note for "muller"`, "1. people/mueller — Herr Müller", "phone 123"}, ""},
		{"search none", `{"action":"search","query":"zebra"}`, []string{`no notes match "zebra"`}, ""},
		{"list", `{"action":"list"}`, []string{"2 notes", "b\n", "people/mueller — Herr Müller"}, ""},
		{"list limit", `{"action":"list","limit":1}`, []string{"2 notes, the first 1", "b\n"}, ""},
		{"action case", `{"action":" READ ","name":"b"}`, []string{"hi"}, ""},
		{"read missing name", `{"action":"read"}`, []string{`"name"`}, jarvisbot.EINVALID},
		{"read unknown", `{"action":"read","name":"people/muller"}`, []string{`"people/mueller"`}, jarvisbot.ENOTFOUND},
		{"search missing query", `{"action":"search"}`, []string{`"query"`}, jarvisbot.EINVALID},
		{"write missing body", `{"action":"write","name":"x"}`, []string{`"body"`}, jarvisbot.EINVALID},
		{"append missing text", `{"action":"append","name":"x"}`, []string{`"text"`}, jarvisbot.EINVALID},
		{"write hostile name", `{"action":"write","name":"../x","body":"x"}`, []string{`".."`}, jarvisbot.EINVALID},
		{"delete not offered", `{"action":"delete","name":"b"}`, []string{"unknown action"}, jarvisbot.EINVALID},
		{"missing action", `{"name":"b"}`, []string{`"action"`}, jarvisbot.EINVALID},
		{"unknown field", `{"action":"write","name":"x","content":"y"}`, []string{"content"}, jarvisbot.EINVALID},
		{"negative limit", `{"action":"search","query":"x","limit":-1}`, []string{"negative"}, jarvisbot.EINVALID},
		{"bad JSON", `{"action":`, []string{"not a valid JSON"}, jarvisbot.EINVALID},
		{"not an object", `["read"]`, []string{"not a valid JSON"}, jarvisbot.EINVALID},
		{"wrong type", `{"action":"search","query":"x","limit":"5"}`, []string{"not a valid JSON"}, jarvisbot.EINVALID},
		{"trailing data", `{"action":"list"} {}`, []string{"after the JSON"}, jarvisbot.EINVALID},
		{"empty", ``, []string{"needs arguments"}, jarvisbot.EINVALID},
		{"null", `null`, []string{"needs arguments"}, jarvisbot.EINVALID},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			got, err := w.Call(ctx, json.RawMessage(s.args))
			if s.code != "" {
				wantCode(t, err, s.code)
				got = err.Error()
			} else if err != nil {
				t.Fatal(err)
			}
			for _, want := range s.want {
				if !strings.Contains(got, want) {
					t.Errorf("Call(%s) = %q, want it to contain %q", s.args, got, want)
				}
			}
		})
	}
}

// FuzzCall pins that no arguments panic Call or write outside the wiki.
func FuzzCall(f *testing.F) {
	for _, s := range []string{
		`{"action":"write","name":"a/b","body":"# T\nx"}`,
		`{"action":"append","name":"a/b","text":"more"}`,
		`{"action":"read","name":"a/b"}`,
		`{"action":"search","query":"Müller t","limit":3}`,
		`{"action":"list"}`,
		`{"action":"write","name":"../x","body":"x"}`,
		`{"action":"write","name":"escape/x","body":"x"}`,
		`{"action":"write","name":"/tmp/x","body":"x"}`,
		`{"action":"write","name":"a\\b","body":"x"}`,
		`{"action":"write","name":"x\u0000y","body":"x"}`,
		`{"action":`, `null`, `[]`, `""`, `{"limit":1e99}`,
	} {
		f.Add([]byte(s))
	}
	base := f.TempDir()
	dir := filepath.Join(base, "wiki")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{dir, outside} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(dir, "escape")); err != nil {
		f.Fatal(err)
	}
	w := New(dir)
	f.Fuzz(func(t *testing.T, args []byte) {
		w.Call(context.Background(), args)
		if entries, _ := os.ReadDir(outside); len(entries) != 0 {
			t.Fatalf("Call(%q) wrote outside the wiki: %v", args, entries)
		}
		if entries, _ := os.ReadDir(base); len(entries) != 2 {
			t.Fatalf("Call(%q) wrote beside the wiki: %v", args, entries)
		}
	})
}

// TestReadBodyLimitP5X4: a note's text read from the owner is refused past
// what a note may hold, with the size and what to do, and read whole up
// to it.
func TestReadBodyLimitP5X4(t *testing.T) {
	got, err := ReadBody(strings.NewReader(strings.Repeat("x", MaxBody)), "stdin")
	if err != nil || len(got) != MaxBody {
		t.Fatalf("a note of the largest size: %d bytes, %v", len(got), err)
	}
	_, err = ReadBody(strings.NewReader(strings.Repeat("x", MaxBody+1)), "stdin")
	if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "stdin holds more than 1048576 bytes") || !strings.Contains(err.Error(), "split it into several notes") {
		t.Errorf("one byte too many: %v", err)
	}
}
