package words

import (
	"slices"
	"testing"
)

// TestThesaurusFamiliesC5S3: the families of times link through one
// another: a weekday's family holds the weekend, and the family of
// "tomorrow" holds the parts of a day in both languages; weekdays and the
// parts of a day are separate families.
func TestThesaurusFamiliesC5S3(t *testing.T) {
	of := map[string]int{}
	for i, fam := range DefaultThesaurus().Families() {
		if !slices.IsSorted(fam) {
			t.Errorf("family %d is not sorted: %v", i, fam)
		}
		for _, w := range fam {
			if _, dup := of[w]; dup {
				t.Errorf("%q is in two families", w)
			}
			of[w] = i
		}
	}
	same := func(a, b string) bool {
		fa, oka := of[Stem(a)]
		fb, okb := of[Stem(b)]
		return oka && okb && fa == fb
	}
	for _, p := range [][2]string{{"monday", "weekend"}, {"freitag", "sunday"}, {"tomorrow", "afternoon"}, {"tomorrow", "nachmittag"}, {"evening", "abend"}, {"morgen", "morning"}} {
		if !same(p[0], p[1]) {
			t.Errorf("%q and %q are not of one family", p[0], p[1])
		}
	}
	if same("monday", "afternoon") {
		t.Errorf("weekdays and parts of a day are one family")
	}
}
