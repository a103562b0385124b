package wiki

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog"
)

// TestRunA2: the wiki is the runner of builtin:wiki for the agent runtime,
// with the same answers as Call.
func TestRunA2(t *testing.T) {
	w, _ := newWiki(t)
	cp := w.Capability()
	ctx := context.Background()
	if out, err := w.Run(ctx, catalog.Call{Cap: &cp, Args: json.RawMessage(`{"action":"write","name":"seam","body":"one runner per kind"}`)}); err != nil || out.IsError || !strings.Contains(out.Text, "saved seam") {
		t.Fatalf("write: %+v %v", out, err)
	}
	if out, err := w.Run(ctx, catalog.Call{Cap: &cp, Args: json.RawMessage(`{"action":"read","name":"seam"}`)}); err != nil || !strings.Contains(out.Text, "one runner per kind") {
		t.Errorf("read: %+v %v", out, err)
	}
	if _, err := w.Run(ctx, catalog.Call{Cap: &cp, Args: json.RawMessage(`{"action":"read"}`)}); err == nil {
		t.Error("read without a name ran")
	}
}
