package catalog

import (
	"encoding/json"
	"slices"
	"testing"
)

// enumWords is what a gate takes of a schema's enums: the word-shaped
// values read as the tool list arrives (enumValues), then those the word
// tables know (isPlainWord), as serverSpans judges them. Identifiers and
// codes ("us-east-1", "ASC") are no words and are left out.
func enumWords(schema json.RawMessage) []string {
	return slices.DeleteFunc(enumValues(schema), func(v string) bool { return !isPlainWord(v) })
}

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
		{"pretty, with escapes", "{\n  \"enum\" : [ \"walk\\u0069ng\" ,\n \"driving\" ]\n}", []string{"driving", "walking"}},
		{"after other keys and values", `{"a":1,"b":[2,{"c":null}],"enum":["walking"]}`, []string{"walking"}},
		{"an enum key with a number, an array after", `{"enum":5,"x":["walking"]}`, nil},
		{"enum words quoted in a description", `{"description":"use \"enum\": [\"walking\"]","enum":["driving"]}`, []string{"driving"}},
		{"a property named enum holding an enum", `{"properties":{"enum":{"enum":["walking"]}}}`, []string{"walking"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := enumWords(json.RawMessage(tc.schema)); !slices.Equal(got, tc.want) {
				t.Errorf("enumWords = %q, want %q", got, tc.want)
			}
		})
	}
}

// enumWordsDecoded is enumWords as a full decode and walk: slower, plainly
// right; the scan must agree with it on every real tool.
func enumWordsDecoded(schema json.RawMessage) []string {
	var root any
	if json.Unmarshal(schema, &root) != nil {
		return nil
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if list, ok := v["enum"].([]any); ok {
				for _, e := range list {
					if s, ok := e.(string); ok && isPlainWord(s) && !slices.Contains(out, s) {
						out = append(out, s)
					}
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(root)
	slices.Sort(out)
	return out
}

// TestEnumWordsAgreeWithADecode: over the 294 real tools of the extended
// snapshot, the scan finds exactly the words a full decode does.
func TestEnumWordsAgreeWithADecode(t *testing.T) {
	snap := extendedSnapshot(t)
	n, with := 0, 0
	for _, s := range snap.MCPServers {
		for _, tool := range s.Tools {
			n++
			got, want := enumWords(tool.InputSchema), enumWordsDecoded(tool.InputSchema)
			if len(want) > 0 {
				with++
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s/%s: enumWords = %q, a decode finds %q", s.Name, tool.Name, got, want)
			}
		}
	}
	if n < 290 || with == 0 {
		t.Errorf("compared %d tools, %d with enum words: the snapshot is not the one expected", n, with)
	}
}
