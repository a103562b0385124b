package words

// Stem returns the stem of a folded word (see StemBytes).
func Stem(s string) string {
	b := StemBytes([]byte(s))
	return string(b)
}

// StemBytes reduces a folded, lower-case word to the stem that its English
// and German inflected forms share, in place, and returns the shortened
// slice: "issues" and "issue", "repositories" and "repository", "Termine"
// and "Termin", "Mails" and "Mail" meet.
//
// It is a light stemmer on purpose (plural and case endings only, in the
// manner of the S-stemmer and Savoy's light German stemmer): the gate
// matches nouns, and aggressive stemmers conflate words it must keep apart
// ("general"/"generic", "university"/"universe"). Because every text, the
// message and the vocabulary alike, goes through the same function, a stem
// only has to be consistent, not a real word. No stem is shorter than four
// letters, which keeps "user", "note" and "open" intact. It allocates
// nothing.
func StemBytes(b []byte) []byte {
	b = englishPlural(b)
	if v := germanParticiple(b); v != nil {
		// In place, like every other rule: callers keep the prefix.
		return b[:copy(b, v)]
	}
	return germanEnding(b)
}

// germanParticiple returns the verb stem of a German past participle, or
// nil for a word that is not one: "geantwortet" -> "antwort" (as
// "antworten"), "gebuchten" -> "buch", "gelesen" -> "lesen", "geschrieben"
// -> "schrieb" (the verb's past; a strong verb's vowel change needs a
// dictionary). A person asks whether someone "geantwortet" has where a
// manual says "Antwort".
//
// Many nouns begin with "ge" too. A weak participle (ge-...-t) is told
// from one by shape: the verb part has at least four letters and the
// word does not end like a noun (-heit, -keit, -schaft, -icht: "Gesundheit",
// "Gewicht") or a verb whose vowel changes (-acht, -annt). A strong participle (ge-...-en) looks like a noun's plural
// ("Gedanken", "Geschichten"), so it is taken for one only when the
// thesaurus does not know the word's own stem as a word. It allocates
// nothing.
func germanParticiple(b []byte) []byte {
	n := len(b)
	if n < 6 || b[0] != 'g' || b[1] != 'e' || !isASCIIWord(b) {
		return nil
	}
	// germanEnding only shortens: plain is a prefix of b, b is unchanged.
	// A weak participle may be inflected as an adjective ("gebuchten").
	plain := germanEnding(b)
	if v := weakParticiple(plain); v != nil {
		return v
	}
	if b[n-2] != 'e' || b[n-1] != 'n' || n-4 < 3 { // "gegen", "gehen", "gelten"
		return nil
	}
	if DefaultThesaurus().has(plain) {
		return nil
	}
	// Five letters at least: a short strong verb's stem is another word
	// ("geworden" is no "word", "gefunden" no "Fund").
	if v := germanEnding(b[2:]); len(v) > minStem {
		return v
	}
	return nil
}

// weakParticiple returns the verb of ge-...-t, or nil.
func weakParticiple(w []byte) []byte {
	m := len(w)
	// -acht and -annt are the mixed verbs, whose vowel changes
	// ("gedacht" is no "Dach", "gekannt" no "kann").
	if m < 6 || w[m-1] != 't' || hasAnySuffix(w, "heit", "keit", "schaft", "icht", "acht", "annt") {
		return nil
	}
	v := w[2 : m-1]
	// -et after d, t or a consonant before n: "gesendet", "gearbeitet",
	// "geoffnet", "gerechnet".
	if k := len(v); k >= 2 && v[k-1] == 'e' && (v[k-2] == 'd' || v[k-2] == 't' || k >= 3 && v[k-2] == 'n' && !isVowel(v[k-3])) {
		v = v[:k-1]
	}
	if len(v) < minStem {
		return nil
	}
	return v
}

func hasAnySuffix(b []byte, suffixes ...string) bool {
	for _, s := range suffixes {
		if len(b) >= len(s) && string(b[len(b)-len(s):]) == s {
			return true
		}
	}
	return false
}

func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}

const minStem = 4

func englishPlural(b []byte) []byte {
	n := len(b)
	if n < minStem || b[n-1] != 's' || !isASCIIWord(b) {
		return b
	}
	switch b[n-2] {
	case 'u', 's':
		return b // "status", "class": not plurals
	case 'e':
		if n > 4 && b[n-3] == 'i' && b[n-4] != 'a' && b[n-4] != 'e' {
			b[n-3] = 'y' // "repositories" -> "repository"
			return b[:n-2]
		}
		if n > 5 && b[n-3] == 'z' && b[n-4] == 'z' {
			return b[:n-3] // "quizzes" -> "quiz"
		}
		if n > 4 && (b[n-3] == 'x' || b[n-3] == 'h' && (b[n-4] == 'c' || b[n-4] == 's')) {
			return b[:n-2] // "boxes", "branches", "pushes"
		}
		if b[n-3] == 'a' || b[n-3] == 'e' || b[n-3] == 'o' {
			return b
		}
	case 'i', 'a':
		if n <= 4 {
			return b // "this", "has"
		}
	}
	if n-1 < minStem {
		return b
	}
	return b[:n-1]
}

// germanEnding removes one German inflection ending (-ern, -en, -em, -er,
// -es, -e, -n after e-stems is left alone, -s after a consonant that takes
// it), keeping at least minStem letters.
func germanEnding(b []byte) []byte {
	n := len(b)
	if n <= minStem || !isASCIIWord(b) {
		return b
	}
	if n-3 >= minStem && b[n-3] == 'e' && b[n-2] == 'r' && b[n-1] == 'n' {
		return b[:n-3]
	}
	if n-2 >= minStem && b[n-2] == 'e' {
		switch b[n-1] {
		case 'n', 'm', 'r', 's':
			return b[:n-2]
		}
	}
	if n-1 >= minStem && b[n-1] == 'e' {
		return b[:n-1]
	}
	if n-1 >= minStem && b[n-1] == 's' {
		switch b[n-2] {
		case 'b', 'd', 'f', 'g', 'h', 'k', 'l', 'm', 'n', 'r', 't':
			return b[:n-1]
		}
	}
	return b
}

// isASCIIWord reports whether b is letters a-z only; digits, other scripts
// and mixed tokens ("v2", "ios17") are left as they are.
func isASCIIWord(b []byte) bool {
	for _, c := range b {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
