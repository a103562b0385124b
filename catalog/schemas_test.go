package catalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
)

// widgetList is a stored list whose schemas are spaced, as a server may
// send them: the catalog offers them compacted.
const widgetList = `[
	{"name": "measure_widget", "description": "Measure the length of a widget.",
		"inputSchema": {"type": "object", "properties": {"serial": {"type": "string"}}, "required": ["serial"]}},
	{"name": "paint_widget", "description": "Paint a widget in a colour.",
		"inputSchema": {"type": "object", "properties": {"colour": {"enum": ["red", "green"]}}}},
	{"name": "count_widgets", "description": "Count the widgets."}
]`

func widgetTools() []catalog.SnapshotTool {
	tools, err := catalog.ReadStoredList(widgetList)
	if err != nil {
		panic(err)
	}
	return tools
}

var widgetSchemas = map[string]string{
	"mcp:widgets/measure_widget": `{"type":"object","properties":{"serial":{"type":"string"}},"required":["serial"]}`,
	"mcp:widgets/paint_widget":   `{"type":"object","properties":{"colour":{"enum":["red","green"]}}}`,
	"mcp:widgets/count_widgets":  `{"type":"object"}`,
}

// storedWidgets is a catalog with the widgets server's stored list, its
// schemas read again through reread, and a builtin beside it.
func storedWidgets(t *testing.T, reread catalog.Reread) *catalog.Catalog {
	t.Helper()
	c := catalog.New()
	if err := c.Add(catalog.Capability{ID: "builtin:clock", Description: "Tell the time."}); err != nil {
		t.Fatal(err)
	}
	if err := c.SetStoredServer(catalog.Server{ID: "widgets", Connected: true}, func() string { return widgetList }, reread); err != nil {
		t.Fatal(err)
	}
	return c
}

func viewCaps(t *testing.T, v *catalog.View, ids ...string) []*catalog.Capability {
	t.Helper()
	out := make([]*catalog.Capability, len(ids))
	for i, id := range ids {
		cp, ok := v.Capability(id)
		if !ok {
			t.Fatalf("no %s in the view", id)
		}
		out[i] = cp
	}
	return out
}

// TestStoredSchemasReadAgainWhenOfferedC1: a stored list read with a
// reread keeps its schemas out of the view, counting their size all the
// same; WithSchemas puts them back, compacted, with one read per server,
// on copies, leaving the view and what needs nothing as they were.
func TestStoredSchemasReadAgainWhenOfferedC1(t *testing.T) {
	ctx := context.Background()
	reads := 0
	v := storedWidgets(t, func(context.Context) ([]catalog.SnapshotTool, error) {
		reads++
		return widgetTools(), nil
	}).View()
	held := storedWidgets(t, nil).View()
	for id := range widgetSchemas {
		cp := viewCaps(t, v, id)[0]
		if cp.InputSchema != nil {
			t.Errorf("%s holds its schema in the view: %s", id, cp.InputSchema)
		}
		if hcp := viewCaps(t, held, id)[0]; cp.SchemaBytes() != hcp.SchemaBytes() || len(hcp.InputSchema) == 0 {
			t.Errorf("%s: SchemaBytes %d, want %d as with the schema held", id, cp.SchemaBytes(), hcp.SchemaBytes())
		}
	}

	caps := viewCaps(t, v, "builtin:clock", "mcp:widgets/measure_widget", "mcp:widgets/paint_widget", "mcp:widgets/count_widgets")
	got, err := v.WithSchemas(ctx, caps)
	if err != nil {
		t.Fatal(err)
	}
	if reads != 1 {
		t.Errorf("the stored list was read %d times for three of its tools, want once", reads)
	}
	if len(got) != len(caps) || got[0] != caps[0] {
		t.Fatalf("WithSchemas: %d caps, the builtin replaced: %v", len(got), got[0] != caps[0])
	}
	for i, cp := range got[1:] {
		if cp.ID != caps[i+1].ID || string(cp.InputSchema) != widgetSchemas[cp.ID] || cp.SchemaBytes() != caps[i+1].SchemaBytes() {
			t.Errorf("%s: schema %s (%d bytes offered), want %s", cp.ID, cp.InputSchema, cp.SchemaBytes(), widgetSchemas[cp.ID])
		}
		if caps[i+1].InputSchema != nil {
			t.Errorf("%s: the view's capability was changed", cp.ID)
		}
	}

	plain := viewCaps(t, v, "builtin:clock")
	if again, err := v.WithSchemas(ctx, plain); err != nil || &again[0] != &plain[0] || reads != 1 {
		t.Errorf("caps with their schemas in place: %v, the same slice %v, %d reads", err, &again[0] == &plain[0], reads)
	}

	snap, err := v.Snapshot(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range snap.MCPServers {
		for _, tl := range s.Tools {
			n++
			if string(tl.InputSchema) != widgetSchemas[catalog.MCPID(s.Name, tl.Name)] {
				t.Errorf("snapshot of %s: schema %s", tl.Name, tl.InputSchema)
			}
		}
	}
	if n != len(widgetSchemas) {
		t.Errorf("snapshot holds %d tools, want %d", n, len(widgetSchemas))
	}
}

// TestStoredSchemasUnreadableC1: a stored list that cannot be read again,
// or no longer holds the tool, leaves it offered with a schema of any
// arguments, and the error says which server and why.
func TestStoredSchemasUnreadableC1(t *testing.T) {
	ctx := context.Background()
	broken := errors.New("database is closed")
	cases := []struct {
		name   string
		reread catalog.Reread
		code   jarvisbot.Code
		says   string
	}{
		{"store fails", func(context.Context) ([]catalog.SnapshotTool, error) { return nil, broken }, jarvisbot.EINTERNAL, "database is closed"},
		{"tool gone", func(context.Context) ([]catalog.SnapshotTool, error) { return widgetTools()[2:], nil }, jarvisbot.ENOTFOUND, "no longer holds measure_widget"},
		{"list emptied", func(context.Context) ([]catalog.SnapshotTool, error) { return nil, nil }, jarvisbot.ENOTFOUND, "no longer holds measure_widget"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := storedWidgets(t, tc.reread).View()
			got, err := v.WithSchemas(ctx, viewCaps(t, v, "mcp:widgets/measure_widget"))
			if err == nil || jarvisbot.ErrorCode(err) != tc.code || !strings.Contains(err.Error(), "widgets") || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error %v (%s), want %s saying %q", err, jarvisbot.ErrorCode(err), tc.code, tc.says)
			}
			if len(got) != 1 || string(got[0].InputSchema) != `{"type":"object"}` {
				t.Errorf("offered as %+v", got)
			}
			if _, err := v.Snapshot(ctx, "test"); err == nil {
				t.Error("a snapshot missing a schema was made")
			}
		})
	}
}

// TestStoredSchemasAfterLiveListC1: a capability taken from a view before
// its server answered gets the schema the server listed live, from the
// view after, without reading the stored list.
func TestStoredSchemasAfterLiveListC1(t *testing.T) {
	reads := 0
	c := storedWidgets(t, func(context.Context) ([]catalog.SnapshotTool, error) {
		reads++
		return nil, errors.New("not read: the live list holds the schemas")
	})
	before := viewCaps(t, c.View(), "mcp:widgets/measure_widget")
	live := widgetTools()
	live[0].InputSchema = json.RawMessage(`{"type":"object","properties":{"serial":{"type":"integer"}}}`)
	if err := c.SetTools("widgets", live, true); err != nil {
		t.Fatal(err)
	}
	got, err := c.View().WithSchemas(context.Background(), before)
	if err != nil || reads != 0 || string(got[0].InputSchema) != string(live[0].InputSchema) {
		t.Errorf("schema %s, %v, %d reads; want the live list's", got[0].InputSchema, err, reads)
	}
}

// TestStoredSchemasBrokenListC1: a stored list that breaks after good
// tools holds no tools when its schemas stay in the store, as when they
// are held: the tools read before the break are taken back.
func TestStoredSchemasBrokenListC1(t *testing.T) {
	for _, raw := range []string{`[{"name":"ok_tool"},{"name":7}]`, `[{"name":"ok_tool"},{"name":"two"}`} {
		c := catalog.New()
		reread := func(context.Context) ([]catalog.SnapshotTool, error) { return nil, nil }
		if err := c.SetStoredServer(catalog.Server{ID: "broken", Connected: true}, func() string { return raw }, reread); err != nil {
			t.Fatal(err)
		}
		if n := c.Tools("broken"); n != 0 {
			t.Errorf("%s: %d tools, want none from a list that does not decode", raw, n)
		}
		for _, cp := range c.View().Capabilities() {
			if cp.Server == "broken" {
				t.Errorf("%s: %s in the view", raw, cp.ID)
			}
		}
	}
}
