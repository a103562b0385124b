package words

import (
	"strings"
	"testing"
)

func TestTokenizeFoldsAndSplits(t *testing.T) {
	tests := []struct {
		in    string
		camel bool
		want  string // folds, space separated; joined tokens prefixed with +
	}{
		{"Öffne einen Pull Request", false, "offne einen pull request"},
		{"Website-Repo", false, "website +repo"},
		{"NotebookLM, make flashcards!", false, "notebooklm make flashcards"},
		{"getFileContents", true, "get file contents"},
		{"HTTPServer_list", true, "http server list"},
		{"What's up", false, "what s up"},
		{"Straße MÜNCHEN", false, "strasse munchen"},
		{"bad\xffutf8\x00ctl", false, "bad utf8 ctl"},
		{"", false, ""},
	}
	for _, tt := range tests {
		z := Tokenizer{Camel: tt.camel}
		var got []string
		for _, tok := range z.Tokenize(tt.in) {
			s := tok.Fold
			if tok.Joined {
				s = "+" + s
			}
			got = append(got, s)
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("Tokenize(%q) = %q, want %q", tt.in, g, tt.want)
		}
	}
}

func TestStemJoinsInflections(t *testing.T) {
	same := [][]string{
		{"issue", "issues"},
		{"repository", "repositories"},
		{"termin", "termine", "terminen", "termins"},
		{"mail", "mails"},
		{"flashcard", "flashcards"},
		{"branch", "branches"},
		{"quiz", "quizzes"},
		{"request", "requests"},
		{"nachricht", "nachrichten"},
		{"source", "sources"},
		{"datei", "dateien"},
	}
	for _, g := range same {
		for _, w := range g[1:] {
			if Stem(w) != Stem(g[0]) {
				t.Errorf("Stem(%q) = %q, Stem(%q) = %q: want equal", w, Stem(w), g[0], Stem(g[0]))
			}
		}
	}
	apart := [][2]string{
		{"repo", "report"}, {"termin", "terminal"}, {"termin", "terminals"},
		{"user", "us"}, {"note", "not"}, {"status", "stat"},
	}
	for _, p := range apart {
		if Stem(p[0]) == Stem(p[1]) {
			t.Errorf("Stem(%q) == Stem(%q) == %q: want different", p[0], p[1], Stem(p[0]))
		}
	}
}

func TestLexiconClasses(t *testing.T) {
	l := Default()
	tests := []struct {
		word string
		want Class
	}{
		{"create", Generic}, {"report", Generic}, {"list", Generic},
		{"issue", Everyday}, {"issues", Everyday}, {"drive", Everyday},
		{"flashcards", Content}, {"repository", Content},
		{"the", Stop}, {"und", Stop},
	}
	for _, tt := range tests {
		if got := l.Class(Stem(Key(tt.word))); got != tt.want {
			t.Errorf("Class(%q) = %v, want %v", tt.word, got, tt.want)
		}
	}
	var z Tokenizer
	if rel := l.Related(PhraseOf(&z, "repo")); !contains(rel, PhraseOf(&z, "repository")) {
		t.Errorf("Related(repo) = %q, want it to hold repository", rel)
	}
}

func TestKey(t *testing.T) {
	for _, s := range []string{"NotebookLM", "notebook lm", "Notebook-LM", "notebooklm"} {
		if Key(s) != "notebooklm" {
			t.Errorf("Key(%q) = %q", s, Key(s))
		}
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"Öffne den Pull-Request", "getFileContents", "\xff\xfe", strings.Repeat("a ", 5000)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var z Tokenizer
		z.Camel = len(s)%2 == 0
		toks := z.Tokenize(s)
		if len(toks) > MaxTokens {
			t.Fatalf("%d tokens, max %d", len(toks), MaxTokens)
		}
		for _, tok := range toks {
			if tok.Fold == "" || tok.Stem == "" {
				t.Fatalf("empty token in %q", s)
			}
			if len(tok.Stem) > len(tok.Fold) {
				t.Fatalf("stem %q longer than %q", tok.Stem, tok.Fold)
			}
		}
	})
}

func BenchmarkTokenize(b *testing.B) {
	var z Tokenizer
	msg := "Which issues are still open in the website repo? Öffne einen Pull Request"
	b.ReportAllocs()
	for b.Loop() {
		z.Tokenize(msg)
	}
}

// TestFileNamesC5: a word attached to the one before by a dot is marked,
// and the lexicon knows which such words are the extensions of files a
// person keeps, and which of those are documents.
func TestFileNamesC5(t *testing.T) {
	var z Tokenizer
	toks := z.Tokenize("Send Angebot v2.pdf and holiday.jpeg. Then e.g. visit example.com")
	dotted := map[string]bool{}
	for _, tok := range toks {
		if tok.Dotted {
			dotted[tok.Fold] = true
		}
	}
	for _, w := range []string{"pdf", "jpeg", "g", "com"} {
		if !dotted[w] {
			t.Errorf("%q is not marked as attached by a dot", w)
		}
	}
	if dotted["then"] || dotted["visit"] {
		t.Errorf("a word after a full stop and a space is marked as attached by a dot: %v", dotted)
	}
	l := Default()
	for _, tt := range []struct {
		ext            string
		file, document bool
	}{
		{"pdf", true, true}, {"docx", true, true}, {"odt", true, true}, {"txt", true, true}, {"xlsx", true, true},
		{"jpeg", true, false}, {"mp3", true, false}, {"zip", true, false},
		{"com", false, false}, {"org", false, false}, {"g", false, false}, {"2026", false, false},
	} {
		if file, doc := l.FileType(tt.ext); file != tt.file || doc != tt.document {
			t.Errorf("FileType(%q) = %v, %v; want %v, %v", tt.ext, file, doc, tt.file, tt.document)
		}
	}
	b, err := lists.ReadFile("lists/file-types.txt")
	if err != nil {
		t.Fatal(err)
	}
	if head := string(b[:min(len(b), 400)]); !strings.Contains(head, "go run ./internal/words/gen/filetypes") || !strings.Contains(head, "media-types 10.0.0") {
		t.Errorf("file-types.txt: header %q does not name its generator and source package", head)
	}
}
