package frozen

import (
	"fmt"
	"slices"
	"testing"
)

// TestMapFindsWhatWasFrozen: every key of the builder's map is found with
// its values in their order, keys it did not have are not (before the
// first, between two, after the last, prefixes, the empty key), and an
// empty map finds nothing.
func TestMapFindsWhatWasFrozen(t *testing.T) {
	src := map[string][]int32{"b": {3, 1}, "ba": {2}, "calendar": {7, 5, 9}, "mail": {4}, "": {0}}
	m := From(src)
	if m.Len() != len(src) {
		t.Fatalf("Len = %d, want %d", m.Len(), len(src))
	}
	for k, want := range src {
		got, ok := m.Get(k)
		if !ok || !slices.Equal(got, want) {
			t.Errorf("Get(%q) = %v, %v; want %v", k, got, ok, want)
		}
	}
	for _, k := range []string{"a", "bb", "c", "cal", "calendars", "z", "mai"} {
		if got, ok := m.Get(k); ok || got != nil || m.At(k) != nil {
			t.Errorf("Get(%q) = %v, %v; want nothing", k, got, ok)
		}
	}
	// A caller appending to what Get returned must not write into the
	// next key's values.
	vs := m.At("b")
	_ = append(vs, 99)
	if got := m.At("ba"); !slices.Equal(got, []int32{2}) {
		t.Errorf("appending to b's values changed ba's: %v", got)
	}
	var empty Map[int32]
	if _, ok := empty.Get("b"); ok {
		t.Error("the zero Map found a key")
	}
}

// TestPostingsFreezeAsFrom: postings filed one by one, repeats included,
// freeze to the Map that From makes of the same values gathered in a map
// of slices, each value once per key in the order first filed; no
// postings freeze to an empty Map.
func TestPostingsFreezeAsFrom(t *testing.T) {
	adds := []struct {
		key string
		val int32
	}{{"mail", 4}, {"b", 3}, {"calendar", 7}, {"b", 1}, {"", 0}, {"calendar", 5}, {"b", 3}, {"ba", 2}, {"calendar", 9}, {"mail", 4}, {"calendar", 7}}
	var p Postings[int32]
	want := map[string][]int32{}
	for _, a := range adds {
		p.Add(a.key, a.val)
		if !slices.Contains(want[a.key], a.val) {
			want[a.key] = append(want[a.key], a.val)
		}
	}
	got, from := p.Freeze(), From(want)
	if got.Len() != from.Len() {
		t.Fatalf("Len = %d, want %d", got.Len(), from.Len())
	}
	for k, vs := range want {
		if g := got.At(k); !slices.Equal(g, vs) {
			t.Errorf("At(%q) = %v, want %v", k, g, vs)
		}
	}
	if !slices.Equal(got.vals, from.vals) || got.keys != from.keys || !slices.Equal(got.ends, from.ends) || !slices.Equal(got.last, from.last) {
		t.Errorf("frozen postings differ from From:\n%+v\n%+v", got, from)
	}
	// Across the list's blocks: thousands of postings over a few hundred
	// keys, each value filed several times.
	var many Postings[int32]
	wantMany := map[string][]int32{}
	for i := range 5000 {
		k, v := fmt.Sprintf("key%03d", (i*7)%311), int32(i%13)
		many.Add(k, v)
		if !slices.Contains(wantMany[k], v) {
			wantMany[k] = append(wantMany[k], v)
		}
	}
	gotMany, fromMany := many.Freeze(), From(wantMany)
	if gotMany.keys != fromMany.keys || !slices.Equal(gotMany.vals, fromMany.vals) || !slices.Equal(gotMany.last, fromMany.last) {
		t.Error("5000 postings froze differently from From")
	}
	var none Postings[int32]
	if m := none.Freeze(); m.Len() != 0 || m.At("b") != nil {
		t.Errorf("no postings froze to %+v", m)
	}
}
