package surface

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// conformancePin names the pinned MCP conformance suite; scripts/test.sh
// installs it into the shared npm test cache.
const conformancePin = "testdata/conformance.txt"

// notOffered are the suite's server scenarios that test what jarvisbot's
// surface does not offer, each with the reason (CONFORMANCE.md lists them).
// Every other scenario the suite runs must pass.
var notOffered = map[string]string{
	"logging-set-level":             "the surface offers no logging capability: apps read the activity board",
	"completion-complete":           "the surface offers no prompts, so no completions",
	"tools-call-simple-text":        "calls the suite's reference tool test_simple_text, which jarvisbot does not have",
	"tools-call-image":              "calls the suite's reference tool test_image_content, which jarvisbot does not have",
	"tools-call-audio":              "calls the suite's reference tool test_audio_content, which jarvisbot does not have",
	"tools-call-embedded-resource":  "calls the suite's reference tool test_embedded_resource, which jarvisbot does not have",
	"tools-call-mixed-content":      "calls the suite's reference tool test_multiple_content_types, which jarvisbot does not have",
	"tools-call-with-logging":       "calls the suite's reference tool test_tool_with_logging, which jarvisbot does not have",
	"tools-call-error":              "calls the suite's reference tool test_error_handling, which jarvisbot does not have (our tool errors are tested in TestBackendErrorBecomesAToolErrorWithItsMessage)",
	"tools-call-with-progress":      "calls the suite's reference tool test_tool_with_progress, which jarvisbot does not have",
	"tools-call-sampling":           "calls the suite's reference tool test_sampling; jarvisbot never asks the app's model to sample",
	"tools-call-elicitation":        "calls the suite's reference tool test_elicitation; jarvisbot asks the owner in chat, never the app",
	"elicitation-sep1034-defaults":  "calls the suite's reference tool test_elicitation_sep1034_defaults; jarvisbot does not elicit",
	"elicitation-sep1330-enums":     "calls the suite's reference tool test_elicitation_sep1330_enums; jarvisbot does not elicit",
	"json-schema-2020-12":           "looks for the suite's reference tool json_schema_2020_12_tool, which jarvisbot does not have",
	"server-sse-polling":            "calls the suite's reference tool test_reconnection, which jarvisbot does not have",
	"resources-list":                "the surface offers no resources",
	"resources-read-text":           "the surface offers no resources",
	"resources-read-binary":         "the surface offers no resources",
	"resources-templates-read":      "the surface offers no resources",
	"resources-subscribe":           "the surface offers no resources",
	"resources-unsubscribe":         "the surface offers no resources",
	"prompts-list":                  "the surface offers no prompts",
	"prompts-get-simple":            "the surface offers no prompts",
	"prompts-get-with-args":         "the surface offers no prompts",
	"prompts-get-embedded-resource": "the surface offers no prompts",
	"prompts-get-with-image":        "the surface offers no prompts",
}

// conformanceCLI returns node and the suite's entry script, or skips with
// the reason when they are not installed.
func conformanceCLI(t *testing.T) (node, script string) {
	t.Helper()
	data, err := os.ReadFile(conformancePin)
	if err != nil {
		t.Fatal(err)
	}
	var pin string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			pin = l
		}
	}
	at := strings.LastIndex(pin, "@")
	if at <= 0 {
		t.Fatalf("%s: no package@version line", conformancePin)
	}
	pkg, version := pin[:at], pin[at+1:]
	node, err = exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the MCP conformance suite needs Node.js")
	}
	dir := os.Getenv("JARVIS_NPM_CACHE")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(cache, "jarvisbot-test", "npm")
	}
	pj := filepath.Join(dir, "node_modules", pkg, "package.json")
	var meta struct {
		Version string            `json:"version"`
		Bin     map[string]string `json:"bin"`
	}
	if data, err := os.ReadFile(pj); err != nil || json.Unmarshal(data, &meta) != nil || meta.Version != version || meta.Bin["conformance"] == "" {
		t.Skipf("%s is not installed in %s (found %q): scripts/test.sh installs it, or: npm install --prefix %s %s", pin, dir, meta.Version, dir, pin)
	}
	return node, filepath.Join(filepath.Dir(pj), meta.Bin["conformance"])
}

// check is one check of a scenario's checks.json.
type check struct {
	ID           string `json:"id"`
	Status       string `json:"status"` // SUCCESS, INFO, WARNING, FAILURE, SKIPPED
	ErrorMessage string `json:"errorMessage"`
}

// TestMCPConformanceSuite runs the pinned MCP conformance suite's server
// scenarios against the surface over streamable HTTP (issue 17). The
// suite's client sends no Authorization header, so it talks to a test
// front that adds a valid key to each request before the real handler,
// whose key check runs as always.
func TestMCPConformanceSuite(t *testing.T) {
	node, script := conformanceCLI(t)
	b := newTestBackend()
	h := newServer(t, b, newTestKeys(testCallers()), Options{Version: "conformance"}).Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set("Authorization", "Bearer "+fullKey)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	// The suite's DNS-rebinding scenario needs a loopback host name.
	url := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) + Path

	out := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, "server", "--url", url, "--output-dir", out)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	log, runErr := cmd.CombinedOutput()
	started := regexp.MustCompile(`(?m)^=== Running scenario: (.+) ===$`).FindAllStringSubmatch(string(log), -1)

	results := map[string][]check{}
	dirs, _ := filepath.Glob(filepath.Join(out, "server-*", "checks.json"))
	stamp := regexp.MustCompile(`-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(-\d{3})?Z$`)
	for _, f := range dirs {
		name := stamp.ReplaceAllString(strings.TrimPrefix(filepath.Base(filepath.Dir(f)), "server-"), "")
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cs []check
		if err := json.Unmarshal(data, &cs); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		results[name] = cs
	}
	if len(results) == 0 {
		t.Fatalf("the suite left no results (%v):\n%s", runErr, log)
	}
	for _, s := range started {
		if _, ok := results[s[1]]; !ok {
			t.Errorf("scenario %s started but left no result", s[1])
		}
	}
	var passed, skipped []string
	for _, name := range slices.Sorted(maps.Keys(results)) {
		var failed []string
		for _, c := range results[name] {
			if c.Status == "FAILURE" {
				failed = append(failed, c.ID+": "+c.ErrorMessage)
			}
		}
		switch why, off := notOffered[name]; {
		case off:
			skipped = append(skipped, name)
			t.Logf("skipped %s: %s", name, why)
		case len(failed) > 0:
			t.Errorf("scenario %s failed:\n  %s", name, strings.Join(failed, "\n  "))
		default:
			passed = append(passed, name)
		}
	}
	if m := regexp.MustCompile(`Running \w+ suite \(\d+ scenarios?\)`).Find(log); m != nil {
		t.Logf("%s", m)
	}
	t.Logf("passed %d: %s", len(passed), strings.Join(passed, ", "))
	t.Logf("skipped %d (not offered; CONFORMANCE.md says why)", len(skipped))
	if len(passed) == 0 {
		t.Errorf("no scenario passed:\n%s", log)
	}
}
