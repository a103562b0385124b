// Package words is the lexical floor under the catalog's gate and focus and
// the skill scorer: it cuts text into tokens, folds case and diacritics,
// reduces English and German inflections to one stem, and knows which words
// are too generic or too everyday to count as evidence on their own.
//
// Everything here is deterministic and model-free. Text flows
// Tokenize -> Token{Fold, Stem} -> lookups by stem in the caller's index.
// The word lists are embedded and parsed once into an immutable Lexicon.
//
// It serves C5 and S3.
package words

import (
	"unicode"
	"unicode/utf8"
)

// MaxTokens bounds the work done on one text: a pasted 100 KB document is
// cut after this many tokens, so a turn's cost stays bounded.
const MaxTokens = 4096

// Token is one word of a text.
type Token struct {
	Fold   string // lower case, diacritics folded ("Öffne" -> "offne")
	Stem   string // Fold with English and German inflection removed
	Joined bool   // attached to the previous token by a hyphen or slash ("Website-Repo")
	Dotted bool   // attached to the previous token by a dot: an extension ("notes.txt") or a domain's end
	Upper  bool   // written with a capital first letter: a name, or a German noun
}

// Tokenizer cuts texts into tokens, reusing its buffers between calls. A
// Tokenizer is not safe for concurrent use; keep one per goroutine (the
// gate pools them).
type Tokenizer struct {
	fold       []byte
	stem       []byte
	spans      []span
	joinedNext bool
	dottedNext bool
	upperNext  bool
	tokens     []Token
	// Camel splits "getFileContents" into get/file/contents; used for
	// identifiers (tool names), not for messages, where "NotebookLM" and
	// "GitHub" are written as one word.
	Camel bool
}

type span struct {
	fold0, fold1, stem0, stem1 int
	joined, dotted, upper      bool
}

// Tokenize returns the tokens of s. The returned slice and its strings stay
// valid until the next call. Invalid UTF-8 and control characters separate
// words like spaces do.
func (z *Tokenizer) Tokenize(s string) []Token {
	z.fold = z.fold[:0]
	z.spans = z.spans[:0]
	start := -1
	var prevRune rune
	sep := 0 // separator runes since the last token
	var sepRune rune
	for i := 0; i < len(s) && len(z.spans) < MaxTokens; {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if !isWordRune(r, size) {
			if start >= 0 {
				z.spans = append(z.spans, span{fold0: start, fold1: len(z.fold), joined: z.joinedNext, dotted: z.dottedNext, upper: z.upperNext})
				start = -1
				sep = 0
			}
			sep++
			sepRune = r
			prevRune = r
			continue
		}
		if start >= 0 && z.Camel && isCamelBreak(prevRune, r, s[i:]) {
			z.spans = append(z.spans, span{fold0: start, fold1: len(z.fold), joined: z.joinedNext, dotted: z.dottedNext, upper: z.upperNext})
			start = -1
			sep = 0
		}
		if start < 0 {
			start = len(z.fold)
			z.joinedNext = len(z.spans) > 0 && sep == 1 && (sepRune == '-' || sepRune == '/')
			z.dottedNext = len(z.spans) > 0 && sep == 1 && sepRune == '.'
			z.upperNext = unicode.IsUpper(r)
		}
		prevRune = r
		z.fold = AppendFold(z.fold, r)
	}
	if start >= 0 && len(z.spans) < MaxTokens {
		z.spans = append(z.spans, span{fold0: start, fold1: len(z.fold), joined: z.joinedNext, dotted: z.dottedNext, upper: z.upperNext})
	}
	// Stems go into a second buffer, so both strings are made once and every
	// token's fields are substrings: two allocations per text, not per word.
	z.stem = z.stem[:0]
	for k := range z.spans {
		sp := &z.spans[k]
		sp.stem0 = len(z.stem)
		z.stem = append(z.stem, z.fold[sp.fold0:sp.fold1]...)
		st := StemBytes(z.stem[sp.stem0:])
		z.stem = z.stem[:sp.stem0+len(st)]
		sp.stem1 = len(z.stem)
	}
	foldStr, stemStr := string(z.fold), string(z.stem)
	z.tokens = z.tokens[:0]
	for _, sp := range z.spans {
		z.tokens = append(z.tokens, Token{
			Fold:   foldStr[sp.fold0:sp.fold1],
			Stem:   stemStr[sp.stem0:sp.stem1],
			Joined: sp.joined,
			Dotted: sp.dotted,
			Upper:  sp.upper,
		})
	}
	return z.tokens
}

// isWordRune reports whether r belongs to a word: letters, digits and
// combining marks. ASCII is decided without the Unicode tables, since it is
// most of what people type.
func isWordRune(r rune, size int) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	if r == utf8.RuneError && size <= 1 {
		return false // invalid UTF-8 separates words
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// isCamelBreak reports a word boundary inside an identifier: "fileContents"
// breaks before C, "HTTPServer" before S, "v2Api" before A.
func isCamelBreak(prev, cur rune, rest string) bool {
	if unicode.IsUpper(cur) {
		if unicode.IsLower(prev) || unicode.IsDigit(prev) {
			return true
		}
		if unicode.IsUpper(prev) {
			next, _ := utf8.DecodeRuneInString(rest)
			return unicode.IsLower(next)
		}
	}
	return false
}

// AppendFold appends r lower-cased with its diacritics removed, so that
// "München", "Munchen" and "MÜNCHEN" meet. German umlauts fold to the base
// vowel, ß to ss; a combining mark (decomposed text) is dropped, since the
// base letter is already there.
func AppendFold(b []byte, r rune) []byte {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(b, byte(r))
	}
	if unicode.Is(unicode.Mn, r) {
		return b
	}
	r = unicode.ToLower(r)
	if s := foldLatin(r); s != "" {
		return append(b, s...)
	}
	return utf8.AppendRune(b, r)
}

// foldLatin returns the ASCII letters a lower-case Latin letter with
// diacritics stands for, or "" for any other rune.
func foldLatin(r rune) string {
	switch r {
	case 'à', 'á', 'â', 'ã', 'ä', 'å', 'ā', 'ă', 'ą', 'ǎ':
		return "a"
	case 'æ':
		return "ae"
	case 'ç', 'ć', 'ĉ', 'ċ', 'č':
		return "c"
	case 'ď', 'đ', 'ð':
		return "d"
	case 'è', 'é', 'ê', 'ë', 'ē', 'ĕ', 'ė', 'ę', 'ě':
		return "e"
	case 'ĝ', 'ğ', 'ġ', 'ģ':
		return "g"
	case 'ĥ', 'ħ':
		return "h"
	case 'ì', 'í', 'î', 'ï', 'ĩ', 'ī', 'ĭ', 'į', 'ı', 'ǐ':
		return "i"
	case 'ĵ':
		return "j"
	case 'ķ':
		return "k"
	case 'ĺ', 'ļ', 'ľ', 'ŀ', 'ł':
		return "l"
	case 'ñ', 'ń', 'ņ', 'ň':
		return "n"
	case 'ò', 'ó', 'ô', 'õ', 'ö', 'ø', 'ō', 'ŏ', 'ő', 'ǒ':
		return "o"
	case 'œ':
		return "oe"
	case 'ŕ', 'ŗ', 'ř':
		return "r"
	case 'ß':
		return "ss"
	case 'ś', 'ŝ', 'ş', 'š', 'ș':
		return "s"
	case 'ţ', 'ť', 'ŧ', 'ț':
		return "t"
	case 'þ':
		return "th"
	case 'ù', 'ú', 'û', 'ü', 'ũ', 'ū', 'ŭ', 'ů', 'ű', 'ų', 'ǔ':
		return "u"
	case 'ŵ':
		return "w"
	case 'ý', 'ÿ', 'ŷ':
		return "y"
	case 'ź', 'ż', 'ž':
		return "z"
	}
	return ""
}
