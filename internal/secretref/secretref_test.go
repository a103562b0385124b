package secretref

import (
	"slices"
	"testing"
)

func TestExpand(t *testing.T) {
	vals := map[string]string{"A": "1", "B_2": "two"}
	lookup := func(n string) (string, bool) { v, ok := vals[n]; return v, ok }
	tests := []struct{ in, out, missing string }{
		{"plain", "plain", ""},
		{"${A}", "1", ""},
		{"Bearer ${B_2}", "Bearer two", ""},
		{"${A}${B_2}-${A}", "1two-1", ""},
		{"$A ${ A} ${1X}", "$A ${ A} ${1X}", ""},
		{"x${C}y${A}", "xy1", "C"},
	}
	for _, tt := range tests {
		out, missing := Expand(tt.in, lookup)
		if missing != tt.missing || (missing == "" && out != tt.out) {
			t.Errorf("Expand(%q) = %q, %q; want %q, %q", tt.in, out, missing, tt.out, tt.missing)
		}
	}
}

func TestNames(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"Bearer ${TOKEN}", []string{"TOKEN"}},
		{"${A}:${B}@${A}", []string{"A", "B"}},
		{"${ A} $B ${}", nil},
	}
	for _, tt := range tests {
		if got := Names(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Names(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestShape(t *testing.T) {
	for in, want := range map[string]string{
		"https://${HA_HOST}/api/mcp": "https://ref.invalid/api/mcp",
		"https://plain.example/mcp":  "https://plain.example/mcp",
		"${A}${B}":                   "ref.invalidref.invalid",
	} {
		if got := Shape(in); got != want {
			t.Errorf("Shape(%q) = %q, want %q", in, got, want)
		}
	}
}
