package words

import (
	"strconv"
	"strings"
	"testing"
)

// TestEmbeddedTablesWellFormed: every generated table the lexicon
// searches in place is sorted by key, holds each key once, and has lines
// of its own form, so a broken generator fails here rather than giving
// the service wrong answers; and every key is found. The thesaurus's
// packed table has tests of its own (TestThesaurusTableC5).
func TestEmbeddedTablesWellFormed(t *testing.T) {
	frequency := func(rest string) bool {
		v, mark, marked := strings.Cut(rest, " ")
		zf, err := strconv.ParseFloat(v, 64)
		return err == nil && zf > 0 && zf < 25.5 && (!marked || mark == "v")
	}
	l := Default()
	tests := []struct {
		name  string
		table table
		rest  func(string) bool // whether a line's rest, after its key, is well-formed
	}{
		{"lists/frequent-en.txt", l.frequent[0], frequency},
		{"lists/frequent-de.txt", l.frequent[1], frequency},
		{"lists/rare-verbs-en.txt", l.rareVerbs, func(r string) bool { return r == "" }},
		{"lists/file-types.txt", l.fileTypes, func(r string) bool { return r == "" || r == "d" }},
	}
	for _, tt := range tests {
		n, prev := 0, ""
		for line := range strings.Lines(tt.table.text) {
			line, ok := strings.CutSuffix(line, "\n")
			if !ok {
				t.Errorf("%s: the last line %q does not end the line", tt.name, line)
			}
			key, rest, _ := strings.Cut(line, string(tt.table.sep))
			if key == "" || strings.HasPrefix(key, "#") || strings.ContainsFunc(key, func(r rune) bool { return r <= ' ' }) {
				t.Errorf("%s: line %q has no key, or a key with a space or a control character", tt.name, line)
				continue
			}
			if key <= prev {
				t.Errorf("%s: %q after %q: the table must be sorted, each key once, for its binary search", tt.name, key, prev)
			}
			if !tt.rest(rest) {
				t.Errorf("%s: line %q is not of the table's form", tt.name, line)
			}
			if got, ok := find(tt.table, key); !ok || got != rest {
				t.Errorf("%s: find(%q) = %q, %v; want %q", tt.name, key, got, ok, rest)
			}
			prev = key
			n++
		}
		if n < 100 {
			t.Errorf("%s holds %d lines: is it cut short?", tt.name, n)
		}
	}
}

// TestTableFind: a lookup finds a key on the first, a middle and the last
// line, with or without the last newline, and nothing between keys, with
// and without the index of buckets; a malformed table gives a wrong
// answer but never a panic.
func TestTableFind(t *testing.T) {
	tests := []struct {
		text, key string
		rest      string
		ok        bool
	}{
		{"# header\nb 1\nd 2\nf 3 v\n", "b", "1", true},
		{"# header\nb 1\nd 2\nf 3 v\n", "d", "2", true},
		{"# header\nb 1\nd 2\nf 3 v\n", "f", "3 v", true},
		{"b 1\nd 2\nf 3 v", "f", "3 v", true},
		{"b 1\nd 2\nf", "f", "", true},
		{"b 1\nd 2\nf 3\n", "a", "", false},
		{"b 1\nd 2\nf 3\n", "c", "", false},
		{"b 1\nd 2\nf 3\n", "g", "", false},
		{"b 1\nd 2\nf 3\n", "", "", false},
		{"b 1\nd 2\nf 3\n", "# header", "", false},
		{"", "a", "", false},
		{"# only a header\n", "a", "", false},
		// Keys of every bucket: digits, one letter, letters, bytes above 'z'.
		{"2 x\n9 y\na\nab 1\nabc 2\nb 3\nba 4\nbz 5\nb\xc3\xa4 6\nz 7\n\xc3\xa4 8\n", "9", "y", true},
		{"2 x\n9 y\na\nab 1\nabc 2\nb 3\nba 4\nbz 5\nb\xc3\xa4 6\nz 7\n\xc3\xa4 8\n", "a", "", true},
		{"2 x\n9 y\na\nab 1\nabc 2\nb 3\nba 4\nbz 5\nb\xc3\xa4 6\nz 7\n\xc3\xa4 8\n", "abc", "2", true},
		{"2 x\n9 y\na\nab 1\nabc 2\nb 3\nba 4\nbz 5\nb\xc3\xa4 6\nz 7\n\xc3\xa4 8\n", "b\xc3\xa4", "6", true},
		{"2 x\n9 y\na\nab 1\nabc 2\nb 3\nba 4\nbz 5\nb\xc3\xa4 6\nz 7\n\xc3\xa4 8\n", "\xc3\xa4", "8", true},
		{"2 x\n9 y\na\nab 1\nabc 2\nb 3\nba 4\nbz 5\nb\xc3\xa4 6\nz 7\n\xc3\xa4 8\n", "bb", "", false},
		{"2 x\n9 y\na\nab 1\nabc 2\nb 3\nba 4\nbz 5\nb\xc3\xa4 6\nz 7\n\xc3\xa4 8\n", "3", "", false},
		// A lookup spelled with the separator finds no key.
		{"ab 1 2\nb 3\n", "ab 1", "", false},
		// Malformed: no panic, whatever the answer.
		{"f\n\n\nb\na 1 2 3\n\n", "b", "", false},
		{"\n\n\n", "a", "", false},
		{"\n", "", "", true},
	}
	for _, tt := range tests {
		for _, tb := range []table{newTable(tt.text, ' '), newIndexedTable(tt.text, ' ')} {
			rest, ok := find(tb, tt.key)
			if rest != tt.rest || ok != tt.ok {
				t.Errorf("find(%q, %q), indexed %v: %q, %v; want %q, %v", tt.text, tt.key, tb.starts != nil, rest, ok, tt.rest, tt.ok)
			}
			if rest, ok := find(tb, []byte(tt.key)); rest != tt.rest || ok != tt.ok {
				t.Errorf("find(%q, []byte(%q)), indexed %v: %q, %v; want %q, %v", tt.text, tt.key, tb.starts != nil, rest, ok, tt.rest, tt.ok)
			}
		}
	}
}

// TestTableLookupsAllocateNothing: the tokenizer asks the thesaurus about
// words of every message, of any length, and the lexicon classes every
// stem: no lookup allocates.
func TestTableLookupsAllocateNothing(t *testing.T) {
	th, l := DefaultThesaurus(), Default()
	long := []byte(strings.Repeat("donaudampfschifffahrt", 3))
	for _, w := range [][]byte{[]byte("gesund"), []byte("afternoon"), long} {
		if n := testing.AllocsPerRun(100, func() { th.has(w) }); n != 0 {
			t.Errorf("has(%q) allocates %v times", w, n)
		}
		s := string(w)
		if n := testing.AllocsPerRun(100, func() {
			th.EachRelated(s, func(string, Relation) {})
			for range th.Words(s, Synonym) {
			}
		}); n != 0 {
			t.Errorf("the words related to %q allocate %v times", w, n)
		}
	}
	stems := []string{"take", "calendar", "rename", "the", "zzzz", string(long)}
	if n := testing.AllocsPerRun(100, func() {
		for _, s := range stems {
			l.Class(s)
			l.IdentClass(s)
			l.Distinctive(s)
			l.Zipf(s)
			l.FileType(s)
		}
	}); n != 0 {
		t.Errorf("the lexicon's lookups allocate %v times", n)
	}
}
