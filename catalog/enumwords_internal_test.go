package catalog

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestEnumWordsC5: the word values of enums at any depth are read, and
// nothing else is: "enum" as a property's name or as a value, codes and
// identifiers, values of nested arrays; a broken schema gives none.
func TestEnumWordsC5(t *testing.T) {
	tests := []struct {
		name, schema string
		want         []string
	}{
		{"none", `{"type":"object","properties":{"q":{"type":"string"}}}`, nil},
		{"top level", `{"type":"object","properties":{"mode":{"type":"string","enum":["walking","driving","ASC","us-east-1"]}}}`, []string{"driving", "walking"}},
		{"nested and repeated", `{"properties":{"a":{"items":{"properties":{"b":{"enum":["transit","walking"]}}}},"c":{"enum":["walking", 3, null, true]}}}`, []string{"transit", "walking"}},
		{"enum as a property name", `{"properties":{"enum":{"type":"string","description":"walking"}}}`, nil},
		{"enum as a value", `{"properties":{"kind":{"const":"enum","default":"driving"}}}`, nil},
		{"arrays inside an enum", `{"enum":[["walking"],{"x":"driving"},"bicycling"]}`, []string{"bicycling"}},
		{"broken", `{"properties":{"m":{"enum":["walking"]},"n":{`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := enumWords(json.RawMessage(tc.schema)); !slices.Equal(got, tc.want) {
				t.Errorf("enumWords = %q, want %q", got, tc.want)
			}
		})
	}
}
