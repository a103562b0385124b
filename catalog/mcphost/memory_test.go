package mcphost

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
)

// TestToolListHeldOnceM1: a session keeps the tools it listed once, as the
// server sent them (what the catalog needs), not also decoded into maps
// by the client library (issue 14: a service with 200 MCP tools idles in
// a few MiB). The heap a session holds stays within a small multiple of
// the listing's own size.
func TestToolListHeldOnceM1(t *testing.T) {
	var tools []map[string]any
	for i := range 200 {
		props := map[string]any{}
		for j := range 12 {
			props[fmt.Sprintf("field_%02d", j)] = map[string]any{"type": "string", "description": fmt.Sprintf("the %d-th field of tool %d, described at some length", j, i)}
		}
		tools = append(tools, map[string]any{"name": fmt.Sprintf("tool_%03d", i), "description": "a tool",
			"inputSchema": map[string]any{"type": "object", "properties": props, "required": []string{"field_00"}}})
	}
	list, err := json.Marshal(tools)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(file, list, 0o600); err != nil {
		t.Fatal(err)
	}
	before := liveHeap()
	cn := dial(t, stdioServer("big", "-tools-file", file), DialOptions{})
	held := liveHeap() - before
	got := map[string]json.RawMessage{}
	for _, tl := range cn.Tools() {
		got[tl.Name] = tl.InputSchema
	}
	for _, want := range tools {
		schema, err := json.Marshal(want["inputSchema"])
		if err != nil {
			t.Fatal(err)
		}
		if !jsonEqual(got[want["name"].(string)], schema) {
			t.Fatalf("tool %s: schema %s, want it as the server sent it: %s", want["name"], got[want["name"].(string)], schema)
		}
	}
	t.Logf("a session with a %d KiB listing holds %d KiB", len(list)>>10, held>>10)
	if held > 3*int64(len(list)) {
		t.Errorf("a session with a %d KiB tool listing holds %d KiB of heap: the listing is kept more than once", len(list)>>10, held>>10)
	}
	runtime.KeepAlive(cn)
}

func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// TestStderrTailSmallBufferM1: a child's stderr is copied into its tail
// through a small buffer, not io.Copy's 32 KiB one, which would be held for
// as long as the server runs (issue 14).
func TestStderrTailSmallBufferM1(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteString("starting\nready on stdio\n"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	tl := &tail{max: stderrTail}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := io.Copy(tl, r); err != nil { // what os/exec does with cmd.Stderr
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := tl.lines(5); got != "starting | ready on stdio" {
		t.Errorf("tail %q", got)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 8<<10 {
		t.Errorf("copying two lines of stderr allocated %d bytes", n)
	}
}
