package catalog

import (
	"slices"
	"strings"
)

// postings is the gate's index from a key (a stem, a pair of stems, a
// name) to the terms it is evidence for, frozen once the gate is built: the
// keys sorted end to end in one string, the term ids of each key in one
// slice, found by binary search. The builder collects into maps; a built
// gate of a 17-server catalog holds ~12,000 keys, which as a Go map of
// slices cost the heap three times what they cost here, for as long as the
// gate lives. A lookup is some fourteen string comparisons.
type postings struct {
	keys string   // every key, in sorted order, end to end
	ends []uint32 // ends[i] is where key i ends in keys
	ids  []int32  // the term ids, key by key
	last []uint32 // last[i] is where key i's ids end in ids
}

// freeze turns a builder's map into postings; the map may be dropped.
func freeze(m map[string][]int32) postings {
	keys := make([]string, 0, len(m))
	size, n := 0, 0
	for k, ids := range m {
		keys = append(keys, k)
		size += len(k)
		n += len(ids)
	}
	slices.Sort(keys)
	p := postings{ends: make([]uint32, len(keys)), ids: make([]int32, 0, n), last: make([]uint32, len(keys))}
	var b strings.Builder
	b.Grow(size)
	for i, k := range keys {
		b.WriteString(k)
		p.ends[i] = uint32(b.Len())
		p.ids = append(p.ids, m[k]...)
		p.last[i] = uint32(len(p.ids))
	}
	p.keys = b.String()
	return p
}

// get returns the term ids of key, and whether the key is known.
func (p *postings) get(key string) ([]int32, bool) {
	lo, hi := 0, len(p.ends)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if p.key(mid) < key {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == len(p.ends) || p.key(lo) != key {
		return nil, false
	}
	from := uint32(0)
	if lo > 0 {
		from = p.last[lo-1]
	}
	return p.ids[from:p.last[lo]:p.last[lo]], true
}

// at returns the ids of key, nil when it is unknown.
func (p *postings) at(key string) []int32 {
	ids, _ := p.get(key)
	return ids
}

func (p *postings) key(i int) string {
	from := uint32(0)
	if i > 0 {
		from = p.ends[i-1]
	}
	return p.keys[from:p.ends[i]]
}
