package names_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/names"
)

func TestValidAgent(t *testing.T) {
	tests := []struct {
		name    string
		wantErr string // substring of the message; "" means valid
	}{
		{"default", ""},
		{"a", ""},
		{"0day", ""},
		{"research-assistant_2", ""},
		{strings.Repeat("a", 64), ""},
		{"", "empty"},
		{strings.Repeat("a", 65), "at most 64"},
		{"-lead", "starts with"},
		{"_lead", "starts with"},
		{"Research", "contains 'R'"},
		{"my agent", "contains ' '"},
		{"agent.one", "contains '.'"},
		{"agént", "contains 'é'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := names.ValidAgent(tt.name)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("ValidAgent(%q) = %v, want nil", tt.name, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("ValidAgent(%q) = nil, want an error containing %q", tt.name, tt.wantErr)
			}
			if got := jarvisbot.ErrorCode(err); got != jarvisbot.EINVALID {
				t.Errorf("code = %q, want %q", got, jarvisbot.EINVALID)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestSource(t *testing.T) {
	// The rule as the regular expression it replaced, checked against
	// every short name over a small alphabet and the table below.
	rule := regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	tests := []struct {
		name string
		want bool
	}{
		{"github", true},
		{"a", true},
		{"9", true},
		{"my-server.v2_x", true},
		{strings.Repeat("a", 64), true},
		{"", false},
		{strings.Repeat("a", 65), false},
		{"-lead", false},
		{".lead", false},
		{"_lead", false},
		{"GitHub", false},
		{"my server", false},
		{"a/b", false},
		{"sérver", false},
		{"a\n", false},
	}
	for _, tt := range tests {
		if got := names.Source(tt.name); got != tt.want || rule.MatchString(tt.name) != tt.want {
			t.Errorf("Source(%q) = %v, the rule says %v, want %v", tt.name, got, rule.MatchString(tt.name), tt.want)
		}
	}
	alphabet := "aZ0.-_ é"
	var each func(prefix string, n int)
	each = func(prefix string, n int) {
		if got, want := names.Source(prefix), rule.MatchString(prefix); got != want {
			t.Errorf("Source(%q) = %v, want %v", prefix, got, want)
		}
		if n == 0 {
			return
		}
		for _, r := range alphabet {
			each(prefix+string(r), n-1)
		}
	}
	each("", 3)
}
