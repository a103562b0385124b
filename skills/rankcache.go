package skills

import (
	"crypto/sha256"
	"encoding/binary"
	"sync"

	"github.com/jarvisbot/jarvisbot/internal/lexrank"
)

// RankerCache keeps the indexes of recent skill lists, so that a turn
// whose enabled skills read as the last turn's did gets its ranker without
// indexing them again (S3): with the thesaurus, indexing what ships costs
// ~10 ms and ~3 MB, and a turn's list is read afresh from the store and
// the data directory each time. An index is reused only when every text
// it was built from is the same; the ranker still hands out this turn's
// skills. The zero value is ready; it is safe for concurrent use.
type RankerCache struct {
	mu  sync.Mutex
	ixs map[[sha256.Size]byte]*lexrank.Index
}

// maxCachedIndexes bounds the cache: one list per agent in use is the
// common case; past it the cache starts over.
const maxCachedIndexes = 8

// Ranker returns a ranker over list, reusing the index of a list whose
// indexed texts are the same.
func (c *RankerCache) Ranker(list []*Skill) *Ranker {
	key := indexKey(list)
	c.mu.Lock()
	ix := c.ixs[key]
	c.mu.Unlock()
	if ix != nil {
		// Learned words change more often than skills do and are few:
		// they are indexed afresh (learned.go).
		return &Ranker{skills: list, ix: ix, learned: learnedIndex(list)}
	}
	r := NewRanker(list)
	c.mu.Lock()
	if c.ixs == nil || len(c.ixs) >= maxCachedIndexes {
		c.ixs = map[[sha256.Size]byte]*lexrank.Index{}
	}
	c.ixs[key] = r.ix
	c.mu.Unlock()
	return r
}

// indexKey hashes, in order, every text of every skill that NewRanker
// indexes; each is length-prefixed, so no two lists share a key by
// running texts together.
func indexKey(list []*Skill) [sha256.Size]byte {
	h := sha256.New()
	count := func(n int) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(n))
		_, _ = h.Write(b[:]) // a hash.Hash never returns an error
	}
	text := func(s string) {
		count(len(s))
		_, _ = h.Write([]byte(s)) // a hash.Hash never returns an error
	}
	texts := func(list []string) {
		count(len(list))
		for _, s := range list {
			text(s)
		}
	}
	count(len(list))
	for _, s := range list {
		text(s.Name)
		text(s.Plugin)
		texts(s.Words)
		texts(s.WordsDE)
		texts(s.Related)
		text(s.Description)
		text(s.WhenToUse)
		texts(s.Headings)
		text(s.Body)
	}
	var key [sha256.Size]byte
	copy(key[:], h.Sum(nil))
	return key
}
