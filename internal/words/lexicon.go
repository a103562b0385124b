package words

import (
	"bufio"
	"embed"
	"fmt"
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

// Lexicon is the parsed, immutable word lists: classes by stem and groups of
// phrases that mean the same thing. It is safe for concurrent use.
type Lexicon struct {
	class  map[string]Class
	groups map[string][]string // stem phrase -> the other phrases of its groups
	verbs  map[string]bool     // stems of the verbs.txt groups
	// zipf is the frequency of a stem, ten times its Zipf value, the
	// higher of its English and German; 0 for a stem rarer than the
	// tables go.
	zipf map[string]uint8
	// glue marks the frequent stems used mostly as a verb, adjective or
	// adverb rather than a noun, that no hand list places.
	glue map[string]bool
	// rareVerb marks the stems rarer than glue goes that are mostly verbs
	// (lists/rare-verbs-en.txt), that no hand list places.
	rareVerb map[string]bool
	// fileType holds the file name extensions people keep files under
	// (lists/file-types.txt): true for a document's, false for another's.
	fileType map[string]bool
	// owner holds the stems by which a message speaks of its owner or
	// asks for something (lists/owner.txt).
	owner map[string]bool
	// self holds the first-person singular stems (lists/self.txt): the
	// owner speaking of themselves.
	self map[string]bool
}

// Default returns the lexicon built from the embedded lists. It is parsed
// once and never changes.
var Default = sync.OnceValue(func() *Lexicon {
	l, err := parse()
	if err != nil {
		panic("words: embedded lists are broken: " + err.Error()) // a build defect, caught by every test
	}
	return l
})

func parse() (*Lexicon, error) {
	l := &Lexicon{class: map[string]Class{}, groups: map[string][]string{}, verbs: map[string]bool{}, zipf: map[string]uint8{}, glue: map[string]bool{}, rareVerb: map[string]bool{}, fileType: map[string]bool{}, owner: map[string]bool{}, self: map[string]bool{}}
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
	for _, file := range []string{"frequent-en.txt", "frequent-de.txt"} {
		if err := l.readFrequent(file); err != nil {
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
	err = eachLine("file-types.txt", func(line string) {
		ext, mark, _ := strings.Cut(line, " ")
		l.fileType[ext] = mark == "d"
	})
	if err != nil {
		return nil, err
	}
	err = eachLine("rare-verbs-en.txt", func(stem string) {
		if l.zipf[stem] == 0 {
			l.rareVerb[stem] = true
		}
	})
	if err != nil {
		return nil, err
	}
	// The hand lists win over the tables: a verb they call everyday
	// ("play", "reply", "upload") stays so in tool names too.
	for _, m := range []map[string]bool{l.glue, l.rareVerb} {
		for stem := range m {
			if _, ok := l.class[stem]; ok {
				delete(m, stem)
			}
		}
	}
	// A frequent word the hand lists do not place is everyday. It is
	// stored with the hand-listed classes, so a turn pays one lookup.
	for stem, zf := range l.zipf {
		if _, ok := l.class[stem]; !ok && zf >= everydayZipf {
			l.class[stem] = Everyday
		}
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

// readFrequent reads a generated frequency table: "ZIPF STEM" lines, with
// " v" after a stem used mostly as a verb, adjective or adverb.
func (l *Lexicon) readFrequent(file string) error {
	var bad error
	err := eachLine(file, func(line string) {
		v, stem, ok := strings.Cut(line, " ")
		stem, mark, marked := strings.Cut(stem, " ")
		zf, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil || zf < 0 || zf >= 25.5 || stem == "" || marked && mark != "v" {
			if bad == nil {
				bad = fmt.Errorf("%s: line %q is not \"ZIPF STEM\" or \"ZIPF STEM v\"", file, line)
			}
			return
		}
		if marked {
			l.glue[stem] = true
		}
		if z := uint8(zf*10 + 0.5); z > l.zipf[stem] {
			l.zipf[stem] = z
		}
	})
	if err != nil {
		return err
	}
	return bad
}

// Zipf returns how frequent a stem is in English or German speech and
// writing, whichever is higher, on the Zipf scale (log10 of occurrences
// per billion words); 0 for a stem rarer than the tables go.
func (l *Lexicon) Zipf(stem string) float64 { return float64(l.zipf[stem]) / 10 }

// IdentClass returns the class of a stem taken from an identifier, such
// as a tool name: Class, except that a common verb, adjective or adverb,
// the glue of identifiers ("select", "take", "back"), is generic, like the
// verbs every tool list has: evidence in a pair with a noun of the same
// name ("take ... screenshot"), never alone, and two of them ("press",
// "fill") do not add up to a service either. So is a verb of any
// frequency ("rename", "deploy"): it says what a tool does, and every
// service renames or deploys something; the noun beside it says to what.
func (l *Lexicon) IdentClass(stem string) Class {
	if l.commonGlue(stem) || l.rareVerb[stem] {
		return Generic
	}
	return l.class[stem]
}

func (l *Lexicon) commonGlue(stem string) bool { return l.glue[stem] && l.zipf[stem] >= identZipf }

// Distinctive reports whether a word of a message can point at a skill or
// service by itself: a content word that is not a common verb, adjective
// or adverb ("select", "take" are not, "calendar" and "flashcards" are).
// A rare verb stays distinctive here: a skill's own rare word
// ("humanize") names what it is for, unlike a tool name's glue.
func (l *Lexicon) Distinctive(stem string) bool {
	return !l.commonGlue(stem) && l.class[stem] == Content
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
	document, file = l.fileType[fold]
	return file, document
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
func (l *Lexicon) Class(stem string) Class { return l.class[stem] }

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
