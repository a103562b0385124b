package catalog

import (
	"encoding/json"
	"testing"
	"unsafe"
)

func sameBytes(a, b []byte) bool {
	return len(a) > 0 && len(b) > 0 && unsafe.SliceData(a) == unsafe.SliceData(b)
}

func TestCompactSchemaSharesWhatIsCompactAlready(t *testing.T) {
	tests := []struct {
		name, raw, want string
		shared, bad     bool
	}{
		{name: "compact", raw: `{"type":"object","properties":{"q":{"type":"string"}}}`, want: `{"type":"object","properties":{"q":{"type":"string"}}}`, shared: true},
		{name: "spaces in strings stay", raw: `{"description":"a b  c"}`, want: `{"description":"a b  c"}`, shared: true},
		{name: "pretty", raw: "{\n  \"type\": \"object\"\n}", want: `{"type":"object"}`},
		{name: "an escaped quote keeps the string open", raw: `{"d":"say \" hi ","e":1}`, want: `{"d":"say \" hi ","e":1}`, shared: true},
		{name: "an escaped backslash ends before the quote", raw: `{"d":"c:\\" , "e":1}`, want: `{"d":"c:\\","e":1}`},
		{name: "not JSON", raw: `{"type":`, bad: true},
	}
	for _, tt := range tests {
		raw := json.RawMessage(tt.raw)
		got, err := CompactSchema(raw)
		if tt.bad {
			if err == nil {
				t.Errorf("%s: CompactSchema(%q) = %q, want an error", tt.name, tt.raw, got)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: CompactSchema(%q) = %q, %v; want %q", tt.name, tt.raw, got, err, tt.want)
		}
		if sameBytes(got, raw) != tt.shared {
			t.Errorf("%s: shares the input's bytes = %v, want %v", tt.name, !tt.shared, tt.shared)
		}
	}
}

// A server's listing and the catalog's capabilities hold one copy of each
// schema, not two.
func TestServerCapsShareTheListedSchemas(t *testing.T) {
	tools := []SnapshotTool{
		{Name: "search", InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)},
		{Name: "none"},
	}
	caps := serverCaps(Server{ID: "s"}, tools)
	if len(caps) != 2 {
		t.Fatalf("serverCaps gave %d capabilities, want 2", len(caps))
	}
	if !sameBytes(caps[0].InputSchema, tools[0].InputSchema) {
		t.Errorf("the capability copied its compact schema instead of sharing it")
	}
	if string(caps[1].InputSchema) != string(defaultSchema) {
		t.Errorf("a tool without a schema got %s, want the default %s", caps[1].InputSchema, defaultSchema)
	}
}

func TestIsObject(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want bool
	}{
		{`{}`, true}, {" \n{\"type\":\"object\"}", true}, {`[]`, false}, {`null`, false},
		{`"{}"`, false}, {`{`, false}, {`{}x`, false}, {`{"a":}`, false}, {``, false},
	} {
		if got := isObject([]byte(tt.raw)); got != tt.want {
			t.Errorf("isObject(%q) = %v, want %v", tt.raw, got, tt.want)
		}
	}
}
