package mcphost

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog"
)

// lockedBuffer is a log sink the host writes from its goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// badToolsFile writes a tools/list with two good tools among bad names.
func badToolsFile(t *testing.T) string {
	t.Helper()
	long := strings.Repeat("n", 300)
	list := `[{"name": "good_one"}, {"name": ""}, {"name": "a/b"}, {"name": "bell\u0007"},
		{"name": "` + long + `"}, {"name": "good_one", "description": "again"}, {"name": "good_two"}]`
	p := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(p, []byte(list), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBadToolNamesLeftOutM1: a server that lists tools with bad names
// (empty, '/', control characters, over-long, repeated) is used with its
// good tools; the others are left out with a warning naming the server and
// the tool, both by Dial and by the host.
func TestBadToolNamesLeftOutM1(t *testing.T) {
	file := badToolsFile(t)
	cn := dial(t, stdioServer("odd", "-tools-file", file), DialOptions{})
	if names := toolNames(cn.Tools()); len(names) != 2 || !names["good_one"] || !names["good_two"] {
		t.Errorf("tools %v, want good_one and good_two", names)
	}
	if left := cn.LeftOut(); len(left) != 5 {
		t.Errorf("left out %v, want the 5 bad listings", left)
	}
	if r := call(t, cn, "good_two", `{}`); r.Text != "good_two called" {
		t.Errorf("good_two: %+v", r)
	}

	logs := &lockedBuffer{}
	cat := catalog.New()
	h := NewHost(cat, HostOptions{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	defer h.Close()
	if err := h.Start(context.Background(), stdioServer("odd", "-tools-file", file)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the good tools", toolsOf(cat, "odd", func(m map[string]bool) bool { return m["good_two"] }))
	if got := connectedTools(cat, "odd"); len(got) != 2 {
		t.Errorf("connected tools %v", got)
	}
	if r, err := h.Call(context.Background(), "odd", "good_one", json.RawMessage(`{}`)); err != nil || r.Text != "good_one called" {
		t.Errorf("good_one through the host: %+v %v", r, err)
	}
	out := logs.String()
	for _, want := range []string{`tool \"a/b\" left out`, `tool \"\" left out`, `tool \"bell\\a\" left out`, `tool \"nnnnnnnn`, "more than once", "server=odd"} {
		if !strings.Contains(out, want) {
			t.Errorf("log does not hold %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\a") {
		t.Errorf("a control character reached the log:\n%s", out)
	}
}
