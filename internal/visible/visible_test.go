package visible

import (
	"strings"
	"testing"
)

// TestTextShowsControlsX2: escape sequences, bidi overrides, zero-width
// characters and other controls are shown as escapes; newline, tab and
// ordinary text (also non-Latin) are kept.
func TestTextShowsControlsX2(t *testing.T) {
	tests := []struct {
		name, in, want string
		hidden         int
	}{
		{"plain", "Hello, Welt! ÄÖÜ 日本語 🙂\n\tnext", "Hello, Welt! ÄÖÜ 日本語 🙂\n\tnext", 0},
		{"ansi colour", "\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`, 2},
		{"clear screen", "a\x1b[2J\x1b[Hb", `a\x1b[2J\x1b[Hb`, 2},
		{"carriage return", "safe\rEVIL", `safe\rEVIL`, 1},
		{"bidi override", "abc\u202Etxt.exe", `abc\u202etxt.exe`, 1},
		{"bidi isolates", "\u2066x\u2069", `\u2066x\u2069`, 2},
		{"zero width", "pass\u200Bword\u200D\uFEFF", `pass\u200bword\u200d\ufeff`, 3},
		{"c1 control", "a\u009bb", `a\u009bb`, 1},
		{"del and bell", "a\x7f\x07", `a\x7f\x07`, 2},
		{"line separator", "a\u2028b", `a\u2028b`, 1},
		{"tag characters", "x\U000E0041", `x\U000e0041`, 1},
		{"hangul filler", "a\u3164b", `a\u3164b`, 1},
		{"invalid utf-8", "a\xffb", `a\xffb`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Text(tt.in)
			if got != tt.want {
				t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if n := Count(tt.in); n != tt.hidden {
				t.Errorf("Count(%q) = %d, want %d", tt.in, n, tt.hidden)
			}
			for _, r := range got {
				if r != '\n' && r != '\t' && hidden(r) {
					t.Errorf("Text(%q) still holds %U", tt.in, r)
				}
			}
			if strings.ContainsRune(got, 0x1b) {
				t.Errorf("Text(%q) still holds ESC", tt.in)
			}
		})
	}
}

// TestLineKeepsOneLineX2: a text shown on one line has its newlines and
// tabs escaped as well as its controls.
func TestLineKeepsOneLineX2(t *testing.T) {
	for in, want := range map[string]string{
		"plain words":           "plain words",
		"two\nlines\tand tab":   `two\nlines\tand tab`,
		"\x1b[2Jcleared\r\nnew": `\x1b[2Jcleared\r\nnew`,
	} {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
}
