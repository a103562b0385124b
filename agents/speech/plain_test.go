package speech

import "testing"

// TestPlainSpeaksWordsNotMarksV1: the spoken answer leaves out what
// Markdown adds around the words.
func TestPlainSpeaksWordsNotMarksV1(t *testing.T) {
	for _, tt := range []struct{ md, want string }{
		{"**Tomorrow** at _nine_.", "Tomorrow at nine."},
		{"## Your day\n- dentist at 9\n- call Ida", "Your day\ndentist at 9\ncall Ida"},
		{"See [the forecast](https://example.org/w) for `Berlin`.", "See the forecast for Berlin."},
		{"```\ncode\n```\nDone.", "code\n\nDone."},
		{"> quoted advice", "quoted advice"},
		{"plain words stay", "plain words stay"},
	} {
		if got := Plain(tt.md); got != tt.want {
			t.Errorf("Plain(%q) = %q, want %q", tt.md, got, tt.want)
		}
	}
}
