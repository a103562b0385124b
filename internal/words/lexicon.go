package words

import (
	"bufio"
	"embed"
	"strconv"
	"strings"
	"sync"
)

//go:embed lists/*.txt
var lists embed.FS

// Class says how much a word can tell about a request's subject.
type Class uint8

// Word classes, from most telling to least.
const (
	Content  Class = iota // a word that can point at a service: "flashcards", "repository"
	Everyday              // a service's subject, but used about anything: "issue", "drive"
	Generic               // never evidence: "create", "list", "report"
	Stop                  // function words: "the", "und"
)

func (c Class) String() string {
	switch c {
	case Everyday:
		return "everyday"
	case Generic:
		return "generic"
	case Stop:
		return "stop"
	}
	return "content"
}

// Everyday is decided from real word frequencies, not from a hand list:
// the generated tables lists/frequent-en.txt and frequent-de.txt (see
// internal/words/gen/freq for their sources) give each frequent stem its
// frequency on the Zipf scale, log10 of occurrences per billion words.
const (
	// everydayZipf is where everyday words begin: 5, a hundred times in a
	// million words, the words people use about anything ("time", "back",
	// "home", "call"). The line sits high on purpose: below it are words
	// that a manual's author chooses to name a service's subject although
	// everybody knows them ("calendar", "mail", "directions", "Termin"),
	// and a card word demoted wrongly loses a clear request. The hand list
	// everyday.txt keeps what frequency cannot see: words that name a
	// service's subject but are used about anything in the services' own
	// world ("issue", "project", "file").
	everydayZipf = 50
	// identZipf is where a verb, adjective or adverb taken from an
	// identifier (a tool name) stops being distinctive. Developers glue
	// tool names together from the common verbs and particles of English
	// (take_screenshot, select_option, navigate_back): such a word says
	// nothing about one service once it is merely common (3.5, about three
	// in a million words), while the nouns beside it keep naming the
	// service's subject up to everydayZipf ("calendar", "directions").
	identZipf = 35
)

// The generated tables stay in the binary's read-only data and are read
// by binary search (see table): they hold thousands of stems, and a map of
// them would cost every process a megabyte of heap at its first turn.
var (
	// frequentEnText and frequentDeText are "STEM ZIPF" lines, or
	// "STEM ZIPF v" for a stem used mostly as a verb, adjective or adverb
	// (gen/freq).
	//go:embed lists/frequent-en.txt
	frequentEnText string
	//go:embed lists/frequent-de.txt
	frequentDeText string
	// rareVerbsText is one stem a line (gen/freq).
	//go:embed lists/rare-verbs-en.txt
	rareVerbsText string
	// fileTypesText is "EXT" lines, or "EXT d" for a document's
	// (gen/filetypes).
	//go:embed lists/file-types.txt
	fileTypesText string
)

// Lexicon is the immutable word lists: classes by stem and groups of
// phrases that mean the same thing. The hand lists, tens of words each,
// are parsed into maps; the generated tables are looked up in place. It is
// safe for concurrent use.
type Lexicon struct {
	// class holds the stems the hand lists place; they win over the
	// generated tables.
	class  map[string]Class
	groups map[string][]string // stem phrase -> the other phrases of its groups
	verbs  map[string]bool     // stems of the verbs.txt groups
	// frequent are the English and German frequency tables
	// (lists/frequent-*.txt): a stem's Zipf value, and whether it is used
	// mostly as a verb, adjective or adverb rather than a noun.
	frequent [2]table
	// rareVerbs are the stems rarer than the frequent tables mark that
	// are mostly verbs (lists/rare-verbs-en.txt).
	rareVerbs table
	// fileTypes are the file name extensions people keep files under
	// (lists/file-types.txt), "d" marking a document's.
	fileTypes table
	// owner holds the stems by which a message speaks of its owner or
	// asks for something (lists/owner.txt).
	owner map[string]bool
	// self holds the first-person singular stems (lists/self.txt): the
	// owner speaking of themselves.
	self map[string]bool
}

// Default returns the lexicon of the embedded lists. The hand lists are
// parsed once; the lexicon never changes.
var Default = sync.OnceValue(func() *Lexicon {
	l, err := parse()
	if err != nil {
		panic("words: embedded lists are broken: " + err.Error()) // a build defect, caught by every test
	}
	return l
})

func parse() (*Lexicon, error) {
	l := &Lexicon{
		class: map[string]Class{}, groups: map[string][]string{}, verbs: map[string]bool{}, owner: map[string]bool{}, self: map[string]bool{},
		frequent:  [2]table{newIndexedTable(frequentEnText, ' '), newIndexedTable(frequentDeText, ' ')},
		rareVerbs: newIndexedTable(rareVerbsText, ' '),
		fileTypes: newIndexedTable(fileTypesText, ' '),
	}
	var z Tokenizer
	// Later lists win: a word that is both everyday and generic is generic.
	for _, f := range []struct {
		file  string
		class Class
	}{{"everyday.txt", Everyday}, {"generic.txt", Generic}, {"stop.txt", Stop}} {
		err := eachLine(f.file, func(line string) {
			for _, t := range z.Tokenize(line) {
				l.class[t.Stem] = f.class
			}
		})
		if err != nil {
			return nil, err
		}
	}
	err := eachLine("owner.txt", func(line string) {
		for _, t := range z.Tokenize(line) {
			l.owner[strings.Clone(t.Stem)] = true
		}
	})
	if err != nil {
		return nil, err
	}
	err = eachLine("self.txt", func(line string) {
		for _, t := range z.Tokenize(line) {
			l.self[strings.Clone(t.Stem)] = true
		}
	})
	if err != nil {
		return nil, err
	}
	for _, file := range []string{"glossary.txt", "verbs.txt"} {
		err := eachLine(file, func(line string) {
			var members []string
			for _, m := range strings.Split(line, ",") {
				if p := PhraseOf(&z, m); p != "" {
					members = append(members, p)
					if file == "verbs.txt" {
						l.verbs[p] = true
					}
				}
			}
			for _, m := range members {
				for _, o := range members {
					if o != m && !contains(l.groups[m], o) {
						l.groups[m] = append(l.groups[m], o)
					}
				}
			}
		})
		if err != nil {
			return nil, err
		}
	}
	return l, nil
}

// frequency returns a stem's frequency, ten times its Zipf value, the
// higher of its English and German (0 for a stem rarer than the tables
// go), and whether either table marks it as used mostly as a verb,
// adjective or adverb. A line the tables' test would reject counts as
// absent.
func (l *Lexicon) frequency(stem string) (zipf uint8, marked bool) {
	for _, t := range l.frequent {
		z, m, ok := frequencyLine(t, stem)
		if ok {
			zipf, marked = max(zipf, z), marked || m
		}
	}
	return zipf, marked
}

// frequencyLine reads a stem's line of a frequency table: "ZIPF", or
// "ZIPF v" for a stem marked as used mostly as a verb, adjective or
// adverb.
func frequencyLine(t table, stem string) (zipf uint8, marked, ok bool) {
	rest, found := find(t, stem)
	if !found {
		return 0, false, false
	}
	v, mark, hasMark := strings.Cut(rest, " ")
	zf, err := strconv.ParseFloat(v, 64)
	if err != nil || zf < 0 || zf >= 25.5 || hasMark && mark != "v" {
		return 0, false, false
	}
	return uint8(zf*10 + 0.5), hasMark, true
}

// glue reports whether a stem is frequent and used mostly as a verb,
// adjective or adverb rather than a noun, and no hand list places it: the
// hand lists win over the tables, so a verb they call everyday ("play",
// "reply", "upload") stays so in tool names too. It returns the stem's
// frequency as well.
func (l *Lexicon) glue(stem string) (zipf uint8, glue bool) {
	zipf, marked := l.frequency(stem)
	_, listed := l.class[stem]
	return zipf, marked && !listed
}

// rareVerb reports whether a stem of the given frequency is one of the
// verbs rarer than the frequent tables go, and no hand list places it.
func (l *Lexicon) rareVerb(stem string, zipf uint8) bool {
	if zipf != 0 {
		return false
	}
	if _, listed := l.class[stem]; listed {
		return false
	}
	_, ok := find(l.rareVerbs, stem)
	return ok
}

// Zipf returns how frequent a stem is in English or German speech and
// writing, whichever is higher, on the Zipf scale (log10 of occurrences
// per billion words); 0 for a stem rarer than the tables go.
func (l *Lexicon) Zipf(stem string) float64 {
	zipf, _ := l.frequency(stem)
	return float64(zipf) / 10
}

// IdentClass returns the class of a stem taken from an identifier, such
// as a tool name: Class, except that a common verb, adjective or adverb,
// the glue of identifiers ("select", "take", "back"), is generic, like the
// verbs every tool list has: evidence in a pair with a noun of the same
// name ("take ... screenshot"), never alone, and two of them ("press",
// "fill") do not add up to a service either. So is a verb of any
// frequency ("rename", "deploy"): it says what a tool does, and every
// service renames or deploys something; the noun beside it says to what.
func (l *Lexicon) IdentClass(stem string) Class {
	if c, ok := l.class[stem]; ok {
		return c // the hand lists win: neither glue nor a rare verb
	}
	zipf, glue := l.glue(stem)
	if glue && zipf >= identZipf || l.rareVerb(stem, zipf) {
		return Generic
	}
	return frequencyClass(zipf)
}

// frequencyClass is the class of a stem no hand list places: a frequent
// word is everyday.
func frequencyClass(zipf uint8) Class {
	if zipf >= everydayZipf {
		return Everyday
	}
	return Content
}

// Distinctive reports whether a word of a message can point at a skill or
// service by itself: a content word that is not a common verb, adjective
// or adverb ("select", "take" are not, "calendar" and "flashcards" are).
// A rare verb stays distinctive here: a skill's own rare word
// ("humanize") names what it is for, unlike a tool name's glue.
func (l *Lexicon) Distinctive(stem string) bool {
	if _, listed := l.class[stem]; listed {
		return false // Everyday, Generic or Stop
	}
	zipf, glue := l.glue(stem)
	return !(glue && zipf >= identZipf) && frequencyClass(zipf) == Content
}

// Asks reports whether a message of these tokens asks for something of
// its owner's: it speaks of the owner ("my", "mein", "I"), says please,
// or begins with a request's verb ("Put", "Zeig", "Move"), the verbs of
// the verb groups and the generic and glue verbs.
func (l *Lexicon) Asks(toks []Token) bool {
	for i, t := range toks {
		if l.owner[t.Stem] {
			return true
		}
		if i == 0 && (l.verbs[t.Stem] || l.class[t.Stem] != Stop && l.IdentClass(t.Stem) == Generic) {
			return true
		}
	}
	return false
}

// Self reports whether a stem is a first-person singular word ("I", "my",
// "ich", "mein"): the owner speaking of themselves.
func (l *Lexicon) Self(stem string) bool { return l.self[stem] }

// Addresses reports whether a stem addresses the assistant or asks
// politely ("you", "du", "please", "bitte"): the words of owner.txt that
// are not the owner's own first person.
func (l *Lexicon) Addresses(stem string) bool { return l.owner[stem] && !l.self[stem] }

// FileType reports whether a folded word is the extension of a file a
// person keeps ("docx", "txt", "jpg"), and whether that file is a
// document. A message that names "report-final.docx" speaks of a file.
func (l *Lexicon) FileType(fold string) (file, document bool) {
	mark, file := find(l.fileTypes, fold)
	return file, file && mark == "d"
}

// IsVerb reports whether a stem is one of the glossary's verbs: evidence in
// a pair, never alone.
func (l *Lexicon) IsVerb(stem string) bool { return l.verbs[stem] }

func eachLine(file string, fn func(string)) error {
	f, err := lists.Open("lists/" + file)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		fn(line)
	}
	return sc.Err()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Class returns the class of a stem: as the hand lists place it, else
// Everyday when it is frequent (everydayZipf), else Content.
func (l *Lexicon) Class(stem string) Class {
	if c, ok := l.class[stem]; ok {
		return c
	}
	zipf, _ := l.frequency(stem)
	return frequencyClass(zipf)
}

// Related returns the phrases (stems joined by single spaces) that mean the
// same as phrase, not including phrase itself.
func (l *Lexicon) Related(phrase string) []string { return l.groups[phrase] }

// PhraseOf returns the stems of s joined by single spaces: the form in which
// the gate's index stores multi-word terms ("Pull Requests" -> "pull request").
func PhraseOf(z *Tokenizer, s string) string {
	toks := z.Tokenize(s)
	switch len(toks) {
	case 0:
		return ""
	case 1:
		return strings.Clone(toks[0].Stem)
	}
	var b strings.Builder
	for i, t := range toks {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.Stem)
	}
	return b.String()
}

// Key returns the folded letters and digits of s with every separator
// removed: the form in which names are compared, so that "NotebookLM",
// "notebook lm", "Notebook-LM" and "notebooklm" are one name.
func Key(s string) string {
	var z Tokenizer
	var b strings.Builder
	for _, t := range z.Tokenize(s) {
		b.WriteString(t.Fold)
	}
	return b.String()
}

// ContentPhrase returns the stems of s without function words, joined by
// single spaces: "issues and pull requests" -> "issue pull request". The
// gate and the scorer match phrases this way, since they never see the
// function words of a message either.
func (l *Lexicon) ContentPhrase(z *Tokenizer, s string) string {
	var b strings.Builder
	for _, t := range z.Tokenize(s) {
		if l.Class(t.Stem) == Stop {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.Stem)
	}
	return b.String()
}
