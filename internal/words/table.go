package words

import "strings"

// table is a generated table embedded in the binary: a header of "#"
// lines, then one line per key, "KEY", or "KEY" and sep and the rest,
// sorted by key in byte order, each key once. A lookup is a binary search
// over the text's bytes: it picks the middle offset of the range left,
// backs up to that line's start and compares its key, so it reads a few
// lines (log2 of their number) and never parses or copies the table. The
// text stays in the binary's read-only data and only the pages a lookup
// reads become resident.
//
// A malformed table (unsorted, a blank line) gives wrong answers, never a
// panic; the package's tests check that every embedded table is well-formed.
type table struct {
	text string // the data lines, the header cut off
	sep  byte   // ends a key within its line
	// starts, if the table was made with newIndexedTable, holds the
	// offset of each bucket's first line (see bucket), and the end.
	starts []int32
}

// newTable cuts the header off a generated table's text.
func newTable(text string, sep byte) table {
	for strings.HasPrefix(text, "#") {
		_, text, _ = strings.Cut(text, "\n")
	}
	return table{text: text, sep: sep}
}

// newIndexedTable is newTable with where each bucket of keys begins (3 KB),
// found in one pass over the table, so that a lookup searches only the few
// lines of its key's bucket, in a few steps instead of a dozen. The
// lexicon's tables are searched for every word of every message and are
// small (tens of KB); the thesaurus, searched when indexes are built,
// would be brought into memory whole by the pass and is not indexed.
func newIndexedTable(text string, sep byte) table {
	t := newTable(text, sep)
	t.starts = make([]int32, buckets+1)
	next := 0 // the first bucket whose start is not known yet
	for off := 0; off < len(t.text); {
		line := t.text[off:]
		if n := strings.IndexByte(line, '\n'); n >= 0 {
			line = line[:n]
		}
		key := line
		if n := strings.IndexByte(line, sep); n >= 0 {
			key = line[:n]
		}
		for b := bucket(key); next <= b; next++ {
			t.starts[next] = int32(off)
		}
		off += len(line) + 1
	}
	for ; next <= buckets; next++ {
		t.starts[next] = int32(len(t.text))
	}
	return t
}

// buckets is how many buckets bucket numbers keys into.
const buckets = 28 * 28

// bucket numbers a key by its first two bytes, in key order, so that the
// keys of a bucket are a run of a table's lines: a letter and the next
// byte's rank (below 'a', a letter, above 'z'), or a first byte's rank
// alone when it is no letter.
func bucket[K string | []byte](key K) int {
	if len(key) == 0 {
		return 0
	}
	first := byteRank(key[0])
	if first == 0 || first == 27 || len(key) == 1 {
		return first * 28
	}
	return first*28 + byteRank(key[1])
}

// byteRank is 0 for a byte below 'a', 1 to 26 for a letter, 27 above 'z'.
func byteRank(b byte) int {
	switch {
	case b < 'a':
		return 0
	case b > 'z':
		return 27
	}
	return int(b-'a') + 1
}

// find returns what follows the key and its separator on the key's line,
// and whether the table holds the key. It takes a string or a byte slice
// and allocates nothing for either.
//
// It compares the key with the start of a line as it stands, byte by
// byte: keys hold no byte as low as a separator or a newline (the tests
// check), so a line whose key ends before the key's own end sorts before
// the key, as its key alone would.
func find[K string | []byte](t table, key K) (rest string, ok bool) {
	text := t.text
	lo, hi := 0, len(text) // lo and hi are line starts (or the end)
	if t.starts != nil {
		b := bucket(key)
		lo, hi = int(t.starts[b]), int(t.starts[b+1])
	}
	for lo < hi {
		start := lo + (hi-lo)/2
		for start > lo && text[start-1] != '\n' {
			start--
		}
		i := 0
		for i < len(key) && start+i < hi && text[start+i] == key[i] {
			i++
		}
		at := start + i
		switch {
		case i == len(key) && (at == hi || text[at] == '\n' || text[at] == t.sep):
			if !isKey(text[start:at], t.sep) {
				return "", false
			}
			if at < hi && text[at] == t.sep {
				rest = text[at+1 : hi]
				if n := strings.IndexByte(rest, '\n'); n >= 0 {
					rest = rest[:n]
				}
			}
			return rest, true
		case i == len(key) || at < hi && text[at] > key[i]:
			hi = start // the line's key is longer, or greater
		default:
			n := strings.IndexByte(text[at:hi], '\n')
			if n < 0 {
				return "", false // the last line's key is smaller
			}
			lo = at + n + 1
		}
	}
	return "", false
}

// isKey reports whether the start of a line that find matched is the
// line's whole key, not a key and more that a lookup spelled with the
// separator.
func isKey(s string, sep byte) bool {
	return strings.IndexByte(s, sep) < 0 && strings.IndexByte(s, '\n') < 0
}
