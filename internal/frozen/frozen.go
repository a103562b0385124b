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

// From freezes a builder's map; the map may be dropped. Each key's values
// keep their order.
func From[V any](m map[string][]V) Map[V] {
	n := 0
	for _, vs := range m {
		n += len(vs)
	}
	return freeze(sortedKeys(m), n, func(vals []V, k string) []V { return append(vals, m[k]...) })
}

// FromValues freezes a map of one value per key.
func FromValues[V any](m map[string]V) Map[V] {
	return freeze(sortedKeys(m), len(m), func(vals []V, k string) []V { return append(vals, m[k]) })
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

// Value returns the first value of key, and whether the key is there: the
// value of a map frozen with FromValues.
func (m *Map[V]) Value(key string) (V, bool) {
	vs, ok := m.Get(key)
	if !ok || len(vs) == 0 {
		var zero V
		return zero, false
	}
	return vs[0], true
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
