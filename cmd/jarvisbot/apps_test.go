package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/appkey"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/mcp/apps"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

var appKeyRE = regexp.MustCompile(`jbk_[a-z2-7]{52}`)

// TestAppsAddShowsTheKeyOnceAndKeepsItsHashM4: `apps add` prints a key
// once with the line to paste and the endpoint; the key checks as that
// app's, and the database holds its hash, never the key.
func TestAppsAddShowsTheKeyOnceAndKeepsItsHashM4(t *testing.T) {
	e := newTestEnv(t)
	code, out, errOut := e.jarvis(t, "", "apps", "add", "laptop", "--scope", "work")
	if code != 0 {
		t.Fatalf("apps add: exit %d\n%s%s", code, out, errOut)
	}
	keys := appKeyRE.FindAllString(out, -1)
	if len(keys) != 1 || strings.Count(out, "jbk_") != 1 {
		t.Fatalf("want the key shown exactly once:\n%s", out)
	}
	key := keys[0]
	for _, want := range []string{"export JARVIS_APP_KEY=" + key + "\n", "http://127.0.0.1:8765/mcp", "scope work", "jarvisbot apps config laptop --client"} {
		if !strings.Contains(out, want) {
			t.Errorf("apps add output lacks %q:\n%s", want, out)
		}
	}

	dbFile := filepath.Join(e.vars["JARVIS_DATA_DIR"], app.DBFile)
	var raw []byte
	for _, p := range []string{dbFile, dbFile + "-wal"} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		raw = append(raw, b...)
	}
	if bytes.Contains(raw, []byte(key)) {
		t.Error("the database holds the key")
	}
	if !bytes.Contains(raw, []byte(appkey.Hash(key))) {
		t.Error("the database does not hold the key's hash")
	}

	db, err := sqlstore.Open(context.Background(), dbFile)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	caller, err := apps.New(db, clock.Real{}, apps.Rate{}).Check(context.Background(), key)
	if err != nil || caller.App != "laptop" || caller.Scope != "work" {
		t.Errorf("the printed key checks as %+v, %v", caller, err)
	}
}

// TestAppsListRevokeAndAddAgainM4: list shows name, scope, created, last
// used and revoked (as a table and as JSON); revoke takes a live app once;
// the name can then be added again; bad names, scopes and duplicates are
// refused.
func TestAppsListRevokeAndAddAgainM4(t *testing.T) {
	e := newTestEnv(t)
	if _, out, _ := e.jarvis(t, "", "apps", "list"); !strings.Contains(out, "No apps yet") {
		t.Errorf("empty list: %q", out)
	}
	if _, out, _ := e.jarvis(t, "", "apps", "list", "--json"); strings.TrimSpace(out) != "[]" {
		t.Errorf("empty JSON list: %q", out)
	}
	for _, args := range [][]string{
		{"apps", "add", "cursor"},
		{"apps", "add", "desktop", "--scope", "full"},
	} {
		e.mustJarvis(t, "", args...)
	}
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"apps", "add", "cursor"}, 1, "exists already"},
		{[]string{"apps", "add", "Bad Name"}, 2, "app name"},
		{[]string{"apps", "add", "x", "--scope", "admin"}, 2, "use read, work or full"},
		{[]string{"apps", "revoke", "nobody"}, 1, "no app named nobody"},
		{[]string{"apps"}, 2, "usage"},
	} {
		code, out, errOut := e.jarvis(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.says) || appKeyRE.MatchString(out+errOut) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d saying %q and no key", tc.args, code, errOut, tc.code, tc.says)
		}
	}
	_, out, _ := e.jarvis(t, "", "apps", "list")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "LAST USED") ||
		!regexp.MustCompile(`^cursor\s+read\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+never\s+-$`).MatchString(lines[1]) ||
		!strings.HasPrefix(lines[2], "desktop ") || !strings.Contains(lines[2], "full") {
		t.Errorf("apps list:\n%s", out)
	}
	if code, out, _ := e.jarvis(t, "", "apps", "revoke", "cursor"); code != 0 || !strings.Contains(out, "Revoked app cursor") {
		t.Errorf("revoke: %d %q", code, out)
	}
	if code, _, errOut := e.jarvis(t, "", "apps", "revoke", "cursor"); code != 1 || !strings.Contains(errOut, "revoked already") {
		t.Errorf("second revoke: %d %q", code, errOut)
	}
	if code, _, errOut := e.jarvis(t, "", "apps", "add", "cursor", "--scope", "work"); code != 0 {
		t.Errorf("adding a revoked name again: %d %q", code, errOut)
	}
	_, out, _ = e.jarvis(t, "", "apps", "list", "--json")
	var listed []struct {
		Name, Scope       string
		Created           string
		LastUsed, Revoked string `json:",omitempty"`
	}
	if err := json.Unmarshal([]byte(out), &listed); err != nil {
		t.Fatalf("list --json: %v\n%s", err, out)
	}
	type row struct {
		name, scope string
		revoked     bool
	}
	want := []row{{"cursor", "read", true}, {"cursor", "work", false}, {"desktop", "full", false}}
	if len(listed) != len(want) {
		t.Fatalf("list --json: %s", out)
	}
	for i, l := range listed {
		if (row{l.Name, l.Scope, l.Revoked != ""}) != want[i] || l.Created == "" {
			t.Errorf("list --json[%d] = %+v, want %v", i, l, want[i])
		}
	}
	if !strings.Contains(out, `"revoked":"`) || strings.Contains(out, `"last_used"`) {
		t.Errorf("list --json fields: %s", out)
	}
}

// TestAppsConfigForEachClientHoldsNoKeyM4: `apps config` prints each
// client's snippet on stdout (JSON that parses, TOML with the server's
// table and the variable's name) and never a key.
func TestAppsConfigForEachClientHoldsNoKeyM4(t *testing.T) {
	e := newTestEnv(t)
	_, out, _ := e.jarvis(t, "", "apps", "add", "laptop")
	key := appKeyRE.FindString(out)
	if key == "" {
		t.Fatalf("no key in %q", out)
	}
	for _, client := range appkey.Clients() {
		code, out, errOut := e.jarvis(t, "", "apps", "config", "laptop", "--client", client)
		if code != 0 {
			t.Errorf("%s: exit %d %s", client, code, errOut)
			continue
		}
		if strings.Contains(out+errOut, key) || appKeyRE.MatchString(out+errOut) {
			t.Errorf("%s: the config shows a key:\n%s", client, out)
		}
		if !strings.Contains(out, "JARVIS_APP_KEY") && !strings.Contains(out, "${input:") {
			t.Errorf("%s: the config does not refer to the key:\n%s", client, out)
		}
		if !strings.Contains(errOut, "laptop") {
			t.Errorf("%s: stderr does not say where the snippet goes: %q", client, errOut)
		}
		if client == appkey.ClientCodex {
			if !strings.Contains(out, "[mcp_servers.jarvisbot]\n") || !strings.Contains(out, `bearer_token_env_var = "JARVIS_APP_KEY"`) || !strings.Contains(out, "http://127.0.0.1:8765/mcp") {
				t.Errorf("codex:\n%s", out)
			}
			continue
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Errorf("%s: not JSON: %v\n%s", client, err, out)
		}
		if client != appkey.ClientClaudeDesktop && !strings.Contains(out, "http://127.0.0.1:8765/mcp") {
			t.Errorf("%s: no endpoint:\n%s", client, out)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"apps", "config", "nobody", "--client", "cursor"}, 1},
		{[]string{"apps", "config", "laptop"}, 2},
		{[]string{"apps", "config", "laptop", "--client", "emacs"}, 2},
	} {
		if code, _, errOut := e.jarvis(t, "", tc.args...); code != tc.code || errOut == "" {
			t.Errorf("%v: exit %d %q, want %d", tc.args, code, errOut, tc.code)
		}
	}
}
