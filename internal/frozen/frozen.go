// Package frozen holds string-keyed indexes that are built once and then
// only read: the keys sorted end to end in one string, the values of every
// key in one slice, found by binary search. Built into Go maps of slices,
// the router's indexes (the gate's, the skill scorer's) cost the heap
// about three times as much for as long as they live; a lookup here is
// some fourteen string comparisons instead of a hash.
package frozen

import (
	"slices"
	"strings"
)

// Map maps keys to their values. The zero Map is empty.
type Map[V any] struct {
	keys string   // every key, in sorted order, end to end
	ends []uint32 // ends[i] is where key i ends in keys
	vals []V      // the values, key by key
	last []uint32 // last[i] is where key i's values end in vals
}

// Postings collect values under keys for a Map, each value once per key,
// in a flat list: a builder with thousands of keys of a value or two each
// (the gate's word pairs) would otherwise grow a Go map of small slices,
// about twice the allocations and a rehash at every doubling. The list
// grows in fixed blocks, so that filing n postings allocates n postings'
// room once, where one growing slice would allocate some five times that
// over its copies.
type Postings[V comparable] struct {
	blocks [][]posting[V]
	n      int
}

const postingBlock = 1024

type posting[V comparable] struct {
	key string
	val V
}

// Add files v under key; a value already filed under key is not filed
// again.
func (p *Postings[V]) Add(key string, v V) {
	if p.n%postingBlock == 0 {
		p.blocks = append(p.blocks, make([]posting[V], 0, postingBlock))
	}
	last := len(p.blocks) - 1
	p.blocks[last] = append(p.blocks[last], posting[V]{key: key, val: v})
	p.n++
}

func (p *Postings[V]) at(i int32) *posting[V] {
	return &p.blocks[i/postingBlock][i%postingBlock]
}

// Freeze makes the Map, each key's values in the order first added; the
// Postings are spent.
func (p *Postings[V]) Freeze() Map[V] {
	order := make([]int32, p.n)
	for i := range order {
		order[i] = int32(i)
	}
	// By key, and in the order added within a key.
	slices.SortFunc(order, func(a, b int32) int {
		if c := strings.Compare(p.at(a).key, p.at(b).key); c != 0 {
			return c
		}
		return int(a - b)
	})
	var f Map[V]
	size, keys := 0, 0
	for i, o := range order {
		if k := p.at(o).key; i == 0 || k != p.at(order[i-1]).key {
			size += len(k)
			keys++
		}
	}
	f.ends, f.last, f.vals = make([]uint32, 0, keys), make([]uint32, 0, keys), make([]V, 0, p.n)
	var b strings.Builder
	b.Grow(size)
	for i, o := range order {
		e := p.at(o)
		if i == 0 || e.key != p.at(order[i-1]).key {
			if i > 0 {
				f.last = append(f.last, uint32(len(f.vals)))
			}
			b.WriteString(e.key)
			f.ends = append(f.ends, uint32(b.Len()))
		} else if slices.Contains(f.vals[f.keyStart(len(f.ends)-1):], e.val) {
			continue
		}
		f.vals = append(f.vals, e.val)
	}
	if p.n > 0 {
		f.last = append(f.last, uint32(len(f.vals)))
	}
	f.keys = b.String()
	p.blocks, p.n = nil, 0
	return f
}

// keyStart is where key i's values begin in vals.
func (m *Map[V]) keyStart(i int) int {
	if i == 0 {
		return 0
	}
	return int(m.last[i-1])
}

// From freezes a builder's map; the map may be dropped. Each key's values
// keep their order.
func From[V any](m map[string][]V) Map[V] {
	n := 0
	for _, vs := range m {
		n += len(vs)
	}
	return freeze(sortedKeys(m), n, func(vals []V, k string) []V { return append(vals, m[k]...) })
}

func sortedKeys[E any](m map[string]E) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// freeze lays keys out in order, add appending each key's values.
func freeze[V any](keys []string, values int, add func(vals []V, key string) []V) Map[V] {
	size := 0
	for _, k := range keys {
		size += len(k)
	}
	f := Map[V]{ends: make([]uint32, len(keys)), vals: make([]V, 0, values), last: make([]uint32, len(keys))}
	var b strings.Builder
	b.Grow(size)
	for i, k := range keys {
		b.WriteString(k)
		f.ends[i] = uint32(b.Len())
		f.vals = add(f.vals, k)
		f.last[i] = uint32(len(f.vals))
	}
	f.keys = b.String()
	return f
}

// Get returns the values of key, and whether the key is there.
func (m *Map[V]) Get(key string) ([]V, bool) {
	lo, hi := 0, len(m.ends)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if m.key(mid) < key {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == len(m.ends) || m.key(lo) != key {
		return nil, false
	}
	from := uint32(0)
	if lo > 0 {
		from = m.last[lo-1]
	}
	return m.vals[from:m.last[lo]:m.last[lo]], true
}

// At returns the values of key, nil when it is not there.
func (m *Map[V]) At(key string) []V {
	vs, _ := m.Get(key)
	return vs
}

// Len is how many keys there are.
func (m *Map[V]) Len() int { return len(m.ends) }

func (m *Map[V]) key(i int) string {
	from := uint32(0)
	if i > 0 {
		from = m.ends[i-1]
	}
	return m.keys[from:m.ends[i]]
}
