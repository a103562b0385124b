package words

import (
	"fmt"
	"slices"
	"strings"
)

// The thesaurus is embedded packed (thesaurus.packed, made from
// thesaurus.txt by gen/packed): its lookups touch every part of the table,
// so the table's size is memory that the first turn pays, and written out
// as text it was 1.6 MB, four fifths of it the related words spelled
// again and again. Packed, a related word is a reference to its own line.
//
// The packed table is a table (see table) of lines sorted by stem:
//
//   - an entry: the stem, entrySep, its related words as groups, one per
//     Relation in order, separated by groupSep, empty groups at the end
//     left off, then '\n';
//   - a bare stem, for a related word that has no entry of its own: the
//     stem, bareSep, '\n'. A lookup finds no entry for it.
//
// A related word is refBytes bytes: the offset of its line in the table,
// seven bits a byte, high bits first, each byte with its top bit set, so
// that no reference holds a separator or a newline and the binary search,
// which backs up to a line's start by looking for '\n', still works.
const (
	entrySep = 0x01
	bareSep  = 0x02
	groupSep = '\t'
	refBytes = 3
	maxRef   = 1<<(7*refBytes) - 1
)

// packedGroup is the group of one relation in an entry's groups (what
// find returns for the stem): its references, "" when it has none.
func packedGroup(groups string, rel Relation) string {
	for range rel {
		i := strings.IndexByte(groups, groupSep)
		if i < 0 {
			return ""
		}
		groups = groups[i+1:]
	}
	if i := strings.IndexByte(groups, groupSep); i >= 0 {
		groups = groups[:i]
	}
	return groups
}

// packedWords calls fn with the word of each reference in a group,
// commonest first, until fn returns false; the words are slices of the
// table text.
func packedWords(text, group string, fn func(string) bool) {
	for ; len(group) >= refBytes; group = group[refBytes:] {
		off := 0
		for _, b := range []byte(group[:refBytes]) {
			off = off<<7 | int(b&0x7f)
		}
		if !fn(stemAt(text, off)) {
			return
		}
	}
}

// stemAt is the stem of the line at off.
func stemAt(text string, off int) string {
	line := text[off:]
	for i := 0; i < len(line); i++ {
		if line[i] < ' ' {
			return line[:i]
		}
	}
	return line
}

// PackThesaurus packs the text table thesaurus.txt: its "#" header, then
// the lines in the packed form. gen/packed writes what it returns to
// thesaurus.packed, and a test checks that the two files agree.
func PackThesaurus(text string) ([]byte, error) {
	var header strings.Builder
	for strings.HasPrefix(text, "#") {
		line, rest, _ := strings.Cut(text, "\n")
		header.WriteString(line + "\n")
		text = rest
	}
	header.WriteString("# Packed from thesaurus.txt by internal/words/gen/packed; do not edit.\n")
	entries := map[string][Derived + 1][]string{}
	var stems []string
	for line := range strings.Lines(text) {
		cols := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if len(cols) != int(Derived)+2 {
			return nil, fmt.Errorf("line %q has %d columns, want %d", line, len(cols), Derived+2)
		}
		var rels [Derived + 1][]string
		for r := range rels {
			rels[r] = strings.Fields(cols[r+1])
		}
		if _, dup := entries[cols[0]]; dup {
			return nil, fmt.Errorf("stem %q has two lines", cols[0])
		}
		entries[cols[0]] = rels
		stems = append(stems, cols[0])
	}
	for _, rels := range entries {
		for _, list := range rels {
			for _, w := range list {
				if _, ok := entries[w]; !ok {
					stems = append(stems, w) // bare: compacted below
				}
			}
		}
	}
	slices.Sort(stems)
	stems = slices.Compact(stems)
	groups := func(rels [Derived + 1][]string) int {
		n := len(rels)
		for n > 0 && len(rels[n-1]) == 0 {
			n--
		}
		return n
	}
	// Every line's length is known before any reference is written:
	// references are of one size.
	at := make(map[string]int, len(stems))
	off := 0
	for _, s := range stems {
		if strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' }) {
			return nil, fmt.Errorf("stem %q holds a space or a control character", s)
		}
		at[s] = off
		n := len(s) + 2
		if rels, ok := entries[s]; ok {
			g := groups(rels)
			n += max(g-1, 0)
			for _, list := range rels[:g] {
				n += refBytes * len(list)
			}
		}
		off += n
	}
	if off > maxRef {
		return nil, fmt.Errorf("the packed table would be %d bytes, more than references reach (%d)", off, maxRef)
	}
	b := make([]byte, 0, header.Len()+off)
	b = append(b, header.String()...)
	for _, s := range stems {
		b = append(b, s...)
		rels, ok := entries[s]
		if !ok {
			b = append(b, bareSep, '\n')
			continue
		}
		b = append(b, entrySep)
		for r, list := range rels[:groups(rels)] {
			if r > 0 {
				b = append(b, groupSep)
			}
			for _, w := range list {
				o := at[w]
				for i := refBytes - 1; i >= 0; i-- {
					b = append(b, 0x80|byte(o>>(7*i))&0x7f)
				}
			}
		}
		b = append(b, '\n')
	}
	return b, nil
}
