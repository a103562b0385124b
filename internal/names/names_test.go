package names_test

import (
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
