package excerpt

import "testing"

func TestAround(t *testing.T) {
	for _, tc := range []struct {
		text              string
		at, before, after int
		want              string
	}{
		{"short text", 0, 10, 20, "short text"},
		{"the quick brown fox jumps over the lazy dog", 16, 8, 12, "…brown fox jumps…"},
		{"grüße aus köln", 8, 2, 20, "…aus köln"},
		{"line one\n\nline two", 0, 5, 40, "line one line two"},
		{"abc", 99, 5, 5, "abc"},
	} {
		if got := Around(tc.text, tc.at, tc.before, tc.after); got != tc.want {
			t.Errorf("Around(%q, %d, %d, %d) = %q, want %q", tc.text, tc.at, tc.before, tc.after, got, tc.want)
		}
	}
}
