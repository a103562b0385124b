package metrics

import (
	"cmp"
	"slices"
	"sort"
	"sync"
)

// counterVec counts by the values of one or two labels. jarvisbot's label
// values are small fixed vocabularies (outcomes, tiers), so the map stays
// a handful of entries; a mutex is cheap at one count per turn or tool
// call and keeps a scrape's copy consistent.
type counterVec struct {
	name, help string
	labels     []string // one or two names; a second value is "" when there is one

	mu sync.Mutex
	n  map[[2]string]float64 // counts, tokens or dollars
}

func newCounterVec(name, help string, labels ...string) *counterVec {
	return &counterVec{name: name, help: help, labels: labels, n: map[[2]string]float64{}}
}

// inc counts one for the label values, in the order of c.labels.
func (c *counterVec) inc(values [2]string) { c.add(values, 1) }

// add counts v (not negative) for the label values.
func (c *counterVec) add(values [2]string, v float64) {
	c.mu.Lock()
	c.n[values] += v
	c.mu.Unlock()
}

// value is the count for the label values, for tests.
func (c *counterVec) value(values [2]string) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[values]
}

func (c *counterVec) family() family {
	c.mu.Lock()
	keys := make([][2]string, 0, len(c.n))
	counts := make(map[[2]string]float64, len(c.n))
	for k, v := range c.n {
		keys = append(keys, k)
		counts[k] = v
	}
	c.mu.Unlock()
	slices.SortFunc(keys, func(a, b [2]string) int {
		return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]))
	})
	f := family{name: c.name, help: c.help, kind: kindCounter, samples: make([]sample, 0, len(keys))}
	for _, k := range keys {
		ls := make([]label, len(c.labels))
		for i, name := range c.labels {
			ls[i] = label{name, k[i]}
		}
		f.samples = append(f.samples, sample{labels: ls, value: counts[k]})
	}
	return f
}

// histogram counts observations into fixed buckets. One mutex guards the
// counts and the sum together, so a scrape never sees a _count that
// disagrees with its +Inf bucket.
type histogram struct {
	name, help string
	bounds     []float64 // upper bounds, ascending; +Inf is implied

	mu     sync.Mutex
	counts []uint64 // per bucket, not cumulative; the last is above every bound
	sum    float64
}

func newHistogram(name, help string, bounds []float64) *histogram {
	return &histogram{name: name, help: help, bounds: bounds, counts: make([]uint64, len(bounds)+1)}
}

func (h *histogram) observe(v float64) {
	// The first bound at or above v: a bucket's le is inclusive.
	i := sort.SearchFloat64s(h.bounds, v)
	h.mu.Lock()
	h.counts[i]++
	h.sum += v
	h.mu.Unlock()
}

func (h *histogram) family() family {
	h.mu.Lock()
	counts := slices.Clone(h.counts)
	sum := h.sum
	h.mu.Unlock()
	return family{name: h.name, help: h.help, kind: kindHistogram, samples: histogramSamples(h.bounds, counts, sum)}
}
