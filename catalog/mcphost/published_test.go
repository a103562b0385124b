package mcphost

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/catalog"
)

// publishedList names the published MCP servers no one here wrote, pinned.
// scripts/test.sh installs them; a test run without it installs them too
// (npm, from the registry, once), and skips only when node is missing.
const publishedList = "testdata/published.txt"

func published(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(publishedList)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// npmServer returns the entry script of a published server's package,
// installing the pinned set into the shared test cache when needed.
func npmServer(t *testing.T, pkg string) (node, script string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the published MCP server tests need Node.js and npm")
	}
	dir := os.Getenv("JARVIS_NPM_CACHE")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(cache, "jarvisbot-test", "npm")
	}
	pins := published(t)
	pj := filepath.Join(dir, "node_modules", pkg, "package.json")
	if !installedAt(pj, pinned(pins, pkg)) {
		npm, err := exec.LookPath("npm")
		if err != nil {
			t.Skip("npm is not installed: the published MCP server tests need it to install " + pkg)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		args := append([]string{"install", "--no-audit", "--no-fund", "--prefix", dir}, pins...)
		if out, err := exec.Command(npm, args...).CombinedOutput(); err != nil {
			t.Fatalf("npm install %v: %v\n%s", pins, err, out)
		}
	}
	var meta struct {
		Bin map[string]string `json:"bin"`
	}
	data, err := os.ReadFile(pj)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &meta); err != nil || len(meta.Bin) == 0 {
		t.Fatalf("%s: no bin entry (%v)", pj, err)
	}
	for _, rel := range meta.Bin {
		return node, filepath.Join(filepath.Dir(pj), rel)
	}
	return "", ""
}

func pinned(pins []string, pkg string) string {
	for _, p := range pins {
		if strings.HasPrefix(p, pkg+"@") {
			return strings.TrimPrefix(p, pkg+"@")
		}
	}
	return ""
}

func installedAt(packageJSON, version string) bool {
	data, err := os.ReadFile(packageJSON)
	if err != nil {
		return false
	}
	var meta struct {
		Version string `json:"version"`
	}
	return json.Unmarshal(data, &meta) == nil && meta.Version == version
}

// TestEverythingServer: the reference "everything" server over stdio,
// through the host, as the service runs it.
func TestEverythingServer(t *testing.T) {
	node, script := npmServer(t, "@modelcontextprotocol/server-everything")
	cat := catalog.New()
	h := NewHost(cat, HostOptions{MinBackoff: 100 * time.Millisecond})
	defer h.Close()
	if err := h.Start(context.Background(), Server{Name: "everything", Command: node, Args: []string{script, "stdio"}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the everything server", toolsOf(cat, "everything", func(m map[string]bool) bool { return m["echo"] }))
	r, err := h.Call(context.Background(), "everything", "echo", json.RawMessage(`{"message":"hello from jarvisbot"}`))
	if err != nil || !strings.Contains(r.Text, "hello from jarvisbot") {
		t.Errorf("echo: %+v %v", r, err)
	}
	r, err = h.Call(context.Background(), "everything", "get-sum", json.RawMessage(`{"a":20,"b":22}`))
	if err != nil || !strings.Contains(r.Text, "42") {
		t.Errorf("get-sum: %+v %v", r, err)
	}
	r, err = h.Call(context.Background(), "everything", "get-tiny-image", json.RawMessage(`{}`))
	if err != nil || !strings.Contains(r.Text, "[image image/png") {
		t.Errorf("get-tiny-image: %+v %v", r, err)
	}
	// Its annotations only raise tiers: echo says read-only, and stays at
	// the default, since the server is not trusted.
	for _, cp := range cat.View().Capabilities() {
		if cp.ID == "mcp:everything/echo" && cp.Tier != catalog.TierMonitor {
			t.Errorf("echo tier %s", cp.Tier)
		}
	}
	if _, err := h.Call(context.Background(), "everything", "echo", json.RawMessage(`{"message":`)); err == nil {
		t.Error("broken arguments accepted")
	}
}

// TestMemoryServer: the published memory server keeps what it is told,
// in the file the config names, with nothing else of our environment.
func TestMemoryServer(t *testing.T) {
	node, script := npmServer(t, "@modelcontextprotocol/server-memory")
	file := filepath.Join(t.TempDir(), "memory.jsonl")
	cn := dial(t, Server{Name: "memory", Command: node, Args: []string{script}, Env: map[string]string{"MEMORY_FILE_PATH": file}}, DialOptions{})
	if !toolNames(cn.Tools())["create_entities"] {
		t.Fatalf("tools: %v", toolNames(cn.Tools()))
	}
	call(t, cn, "create_entities", `{"entities":[{"name":"Owner","entityType":"person","observations":["prefers window seats"]}]}`)
	if r := call(t, cn, "search_nodes", `{"query":"window"}`); !strings.Contains(r.Text, "prefers window seats") {
		t.Errorf("search_nodes: %+v", r)
	}
	if data, err := os.ReadFile(file); err != nil || !strings.Contains(string(data), "window seats") {
		t.Errorf("memory file: %q %v", data, err)
	}
}
