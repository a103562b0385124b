package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestStoredSchemasOfferedM1C3: a server that idles until first use is
// offered from its stored list, whose input schemas the running catalog
// reads again from the store when it offers the tools: the model gets each
// tool with its schema as the server listed it, not an open object.
func TestStoredSchemasOfferedM1C3(t *testing.T) {
	ctx := context.Background()
	f := fakellm.New(t)
	in := testInstallation(t, map[string]string{"JARVIS_PROVIDER": "anthropic", "JARVIS_MODEL": "test-model",
		"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": f.AnthropicURL()})
	file := filepath.Join(t.TempDir(), "tools.json")
	tools := `[{"name": "measure_widget", "description": "Measure the length of a widget.",
	  "inputSchema": {"type": "object", "properties": {"serial": {"type": "string", "description": "The widget's serial number."}}, "required": ["serial"]}},
	 {"name": "paint_widget", "description": "Paint a widget in a colour.",
	  "inputSchema": {"type": "object", "properties": {"serial": {"type": "string"}, "colour": {"type": "string", "enum": ["red", "green"]}}}}]`
	if err := os.WriteFile(file, []byte(tools), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := in.AddServer(ctx, NewServer{Name: "widgets", Command: []string{mcpTestServer(t), "-name", "widgets", "-tools-file", file}}, nil); err != nil {
		t.Fatal(err)
	}

	f.Push(fakellm.Step{Text: "It is 12 mm."})
	// The chat logs the idle server it starts for the turn: its own log,
	// read below, not a warning that fails the test.
	chat := *in.Env
	var out, log strings.Builder
	chat.Stderr = &log
	if err := chat.Chat(ctx, in.Config, ChatOptions{Agent: store.DefaultAgent, In: strings.NewReader(""), Out: &out, Once: "measure the widget W-7 with widgets"}); err != nil {
		t.Fatalf("chat: %v\n%s", err, out.String())
	}
	if strings.Contains(log.String(), "level=WARN") {
		t.Errorf("chat warned:\n%s", log.String())
	}
	reqs := f.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model was not asked")
	}
	var body struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"measure_widget": `{"type":"object","properties":{"serial":{"type":"string","description":"The widget's serial number."}},"required":["serial"]}`,
		"paint_widget":   `{"type":"object","properties":{"serial":{"type":"string"},"colour":{"type":"string","enum":["red","green"]}}}`,
	}
	found := 0
	for _, tl := range body.Tools {
		for name, schema := range want {
			if !strings.HasSuffix(tl.Name, name) {
				continue
			}
			found++
			if got, want := compactJSON(t, tl.InputSchema), compactJSON(t, json.RawMessage(schema)); got != want {
				t.Errorf("%s offered with schema %s, want %s", tl.Name, got, want)
			}
		}
	}
	if found != len(want) {
		t.Errorf("offered %d of the widgets tools; tools: %v", found, reqs[0].Tools)
	}
}

// compactJSON is raw re-encoded: without white space, keys sorted.
func compactJSON(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
