package catalog

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// takesByDecoding is what StoredListTakesATool must agree with: the list
// decoded as SetStoredServer's reader decodes it, then AcceptTools.
func takesByDecoding(raw []byte) bool {
	var tools []SnapshotTool
	if json.Unmarshal(raw, &tools) != nil {
		return false
	}
	kept, _ := AcceptTools("s", tools)
	return len(kept) > 0
}

// TestStoredListTakesAToolAsDecodingWould: serve decides from this which
// idle servers start at once (their stored list holds no tool the catalog
// takes), so it must decide as decoding the list and accepting its tools
// does, damaged lists included.
func TestStoredListTakesAToolAsDecodingWould(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		want      bool
	}{
		{"a tool", `[{"name":"search","description":"Finds things.","inputSchema":{"type":"object"}}]`, true},
		{"no schema", `[{"name":"ping"}]`, true},
		{"empty list", `[]`, false},
		{"null", `null`, false},
		{"not JSON", `[{"name":`, false},
		{"an object, not a list", `{"name":"x"}`, false},
		{"only names the catalog refuses", `[{"name": "a/b"}, {"name": ""}, {"name":"  "}]`, false},
		{"a refused name, then a good one", `[{"name": "a/b"}, {"name":"ok"}]`, true},
		{"schema not an object", `[{"name":"x","inputSchema":[1]}]`, false},
		{"schema null", `[{"name":"x","inputSchema":null}]`, false},
		{"schema spaced object", `[{"name":"x","inputSchema":  {"type":"object"}}]`, true},
		{"description not text", `[{"name":"x","description":7}]`, false},
		{"title null", `[{"name":"x","title":null}]`, true},
		{"annotations wrong", `[{"name":"x","annotations":"yes"}]`, false},
		{"annotation hint wrong", `[{"name":"x","annotations":{"readOnlyHint":"yes"}}]`, false},
		{"name not text", `[{"name":7}]`, false},
		{"a tool not an object", `["x"]`, false},
		{"keys in other case", `[{"NAME":"x","InputSchema":{}}]`, true},
		{"unknown fields", `[{"name":"x","outputSchema":{"type":"object"},"_meta":{}}]`, true},
		{"a good tool, then a broken one", `[{"name":"ok"},{"name":7}]`, false},
		{"white space after the list", "[{\"name\":\"x\"}] \n", true},
		{"a second list after it", `[{"name":"x"}] []`, false},
		{"text after it", `[{"name":"x"}] x`, false},
		{"a comma before the end", `[{"name":"x"},]`, false},
		{"no comma between tools", `[{"name":"x"} {"name":"y"}]`, false},
		{"not closed", `[{"name":"x"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := takesByDecoding([]byte(tc.raw)); got != tc.want {
				t.Fatalf("the table is wrong: decoding says %v", got)
			}
			if got := StoredListTakesATool(tc.raw); got != tc.want {
				t.Errorf("StoredListTakesATool(%s) = %v, want %v", tc.raw, got, tc.want)
			}
		})
	}
}

// shelvedByDecoding is what shelvedCaps must agree with: the list decoded
// whole, its tools made capabilities, each schema then dropped for its
// size.
func shelvedByDecoding(s Server, raw string) []Capability {
	tools, err := ReadStoredList(raw)
	if err != nil {
		return nil
	}
	caps := serverCaps(s, tools)
	for i := range caps {
		caps[i].shelved, caps[i].InputSchema = len(caps[i].InputSchema), nil
	}
	return caps
}

func checkShelved(t *testing.T, raw string) {
	t.Helper()
	s := Server{ID: "s", Trusted: true, Connected: true}
	var got []Capability
	if shelvedCaps(s, raw, func(cp Capability) { got = append(got, cp) }) != nil {
		got = nil // the catalog takes back what a list that fails gave
	}
	want := shelvedByDecoding(s, raw)
	if len(got) != len(want) || len(got) > 0 && !reflect.DeepEqual(got, want) {
		t.Errorf("shelvedCaps(%.200q) =\n%+v\ndecoding whole says\n%+v", raw, got, want)
	}
}

// TestShelvedCapsAsDecodingWould: serve reads its stored lists with their
// schemas left in the store; the tools, their enum words and their
// schemas' sizes must be what decoding the lists whole gives, on the
// 294 real tools of the extended snapshot (compact and spaced), and on
// damaged lists.
func TestShelvedCapsAsDecodingWould(t *testing.T) {
	snap := extendedSnapshot(t)
	for _, srv := range snap.MCPServers {
		compact, err := json.Marshal(srv.Tools)
		if err != nil {
			t.Fatal(err)
		}
		spaced, err := json.MarshalIndent(srv.Tools, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		checkShelved(t, string(compact))
		checkShelved(t, string(spaced))
	}
	for _, raw := range []string{
		`[{"name":"x","inputSchema":{"type":"object","properties":{"mode":{"enum":["fast","slow"]}}}}]`,
		`[{"name":"x","inputSchema":{ "type" : "object" , "description":"a \" quoted   space"}}]`,
		`[{"name":"x","inputSchema":{"a":1},"inputSchema":[1]}]`,
		`[{"name":"x","inputSchema":[1],"inputSchema":{"enum":["a"]}}]`,
		`[{"name":"x","inputSchema":{"enum":["a"]},"inputSchema":{}}]`,
		`[{"name":"x"},{"name":"x","inputSchema":{"enum":["b"]}}]`,
		`[{"name":"x","inputSchema":null},{"name":"x","inputSchema":{"enum":["b"]}}]`,
		`[{"name":"x","inputSchema":{}}, {"name":"y","inputSchema":"s"}]`,
		`[{"name":"x","annotations":{"readOnlyHint":true,"title":"T"}}]`,
		`[{"name":"x","title":"Shown"}]`,
		`null`, `[]`, `[{"name":`, `[{"name":"x","description":7}]`,
	} {
		checkShelved(t, raw)
	}
}

// FuzzStoredListTakesATool: on any input, the light reading and decoding
// agree.
func FuzzStoredListTakesATool(f *testing.F) {
	for _, s := range []string{`[{"name":"x"}]`, `[{"name":"x","inputSchema":null}]`, `[{"name":"a","description":1}]`,
		`[{"name":"x","annotations":{"title":"t"}},{"name":"y","inputSchema":{"a":1}}]`, `[]`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if got, want := StoredListTakesATool(string(raw)), takesByDecoding(raw); got != want {
			t.Errorf("StoredListTakesATool(%q) = %v, decoding says %v", raw, got, want)
		}
		var want []SnapshotTool
		werr := json.Unmarshal(raw, &want)
		got, err := ReadStoredList(string(raw))
		if (err == nil) != (werr == nil) || err == nil && !slices.EqualFunc(got, want, sameTool) {
			t.Errorf("ReadStoredList(%q) = %+v, %v; json.Unmarshal says %+v, %v", raw, got, err, want, werr)
		}
		checkShelved(t, string(raw))
	})
}

func sameTool(a, b SnapshotTool) bool {
	return a.Name == b.Name && a.Title == b.Title && a.Description == b.Description &&
		bytes.Equal(a.InputSchema, b.InputSchema) && reflect.DeepEqual(a.Annotations, b.Annotations)
}
