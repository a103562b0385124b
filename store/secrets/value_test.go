package secrets

import (
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
)

// TestReadValueTrimsOneLineEnd: a value piped with echo or saved by an
// editor loses its one line end and nothing else; an empty value and one
// over the limit are refused without being shown.
func TestReadValueTrimsOneLineEnd(t *testing.T) {
	tests := []struct{ in, want string }{
		{"v", "v"},
		{"v\n", "v"},
		{"v\r\n", "v"},
		{"v\n\n", "v\n"},
		{" v \n", " v "},
	}
	for _, tt := range tests {
		got, err := ReadValue(strings.NewReader(tt.in), "N")
		if err != nil || got != tt.want {
			t.Errorf("ReadValue(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", "\n", strings.Repeat("x", MaxValueLen+1)} {
		_, err := ReadValue(strings.NewReader(in), "N")
		if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || strings.Contains(err.Error(), "xxx") {
			t.Errorf("ReadValue(%d bytes): %v, want EINVALID", len(in), err)
		}
	}
}
