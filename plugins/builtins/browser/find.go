package browser

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/jarvisbot/jarvisbot/internal/words"
)

// Bounds of a passage find shows: a paragraph up to wholePassage bytes is
// shown whole; a longer one as a window around the first match.
const (
	wholePassage = 400
	before       = 150
	after        = 250
)

// folded is a text lower-cased without diacritics (words.AppendFold), with
// the offset in the original of each folded byte, so that a match found in
// the folded text is shown in the original.
type folded struct {
	s    string
	orig []int
}

func foldText(s string) folded {
	b := make([]byte, 0, len(s))
	orig := make([]int, 0, len(s))
	for i, r := range s {
		n := len(b)
		b = words.AppendFold(b, r)
		for range len(b) - n {
			orig = append(orig, i)
		}
	}
	return folded{string(b), orig}
}

type passage struct {
	index  int // paragraph number, from 1
	score  int // distinct query words present; the whole phrase counts double
	at     int // byte offset in the paragraph of the first match
	text   string
	phrase bool
}

// find returns the passages of the page that hold the words of query, best
// first (most of the words, the whole phrase), at most limit, each with a
// little context.
func (p *page) find(query string, limit int) string {
	q := foldText(strings.Join(strings.Fields(query), " ")).s
	terms := slices.Compact(slices.Sorted(slices.Values(strings.Fields(q))))
	var paras []string
	for l := range strings.SplitSeq(p.text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			paras = append(paras, l)
		}
	}
	var hits []passage
	for i, para := range paras {
		f := foldText(para)
		h := passage{index: i + 1, at: -1, text: para}
		for _, t := range terms {
			if at := strings.Index(f.s, t); at >= 0 {
				h.score++
				if h.at < 0 || f.orig[at] < h.at {
					h.at = f.orig[at]
				}
			}
		}
		if len(terms) > 1 {
			if at := strings.Index(f.s, q); at >= 0 {
				h.phrase = true
				h.at = f.orig[at]
			}
		}
		if h.score > 0 {
			hits = append(hits, h)
		}
	}
	where := p.url
	if p.title != "" {
		where = fmt.Sprintf("%q (%s)", p.title, p.url)
	}
	if len(hits) == 0 {
		msg := fmt.Sprintf("no passage of %s has %q", where, query)
		if p.cut || len(p.text) >= keepText {
			msg += " in the part the browser read (the page was cut)"
		}
		return msg
	}
	slices.SortStableFunc(hits, func(a, b passage) int {
		if a.phrase != b.phrase {
			if a.phrase {
				return -1
			}
			return 1
		}
		return cmp.Compare(b.score, a.score)
	})
	total := len(hits)
	hits = hits[:min(limit, total)]
	var b strings.Builder
	if total > len(hits) {
		fmt.Fprintf(&b, "%d passages of %s match %q, the best %d:\n", total, where, query, len(hits))
	} else {
		fmt.Fprintf(&b, "%d %s of %s match %q:\n", total, plural(total, "passage", "passages"), where, query)
	}
	for i, h := range hits {
		fmt.Fprintf(&b, "%d. (paragraph %d of %d) %s\n", i+1, h.index, len(paras), snippet(h.text, h.at))
	}
	return b.String()
}

// snippet is the paragraph, or for a long one the window around at,
// widened to whole words.
func snippet(para string, at int) string {
	if len(para) <= wholePassage {
		return para
	}
	start, end := max(0, at-before), min(len(para), at+after)
	for start > 0 && !utf8.RuneStart(para[start]) {
		start--
	}
	for end < len(para) && !utf8.RuneStart(para[end]) {
		end++
	}
	if start > 0 {
		if sp := strings.IndexByte(para[start:at], ' '); sp >= 0 {
			start += sp + 1
		}
	}
	if end < len(para) {
		if sp := strings.LastIndexByte(para[at:end], ' '); sp > 0 {
			end = at + sp
		}
	}
	s := para[start:end]
	if start > 0 {
		s = "…" + s
	}
	if end < len(para) {
		s += "…"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
