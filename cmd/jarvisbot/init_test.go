package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/app"

	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/store"
)

func TestInitWritesConfigAndStore(t *testing.T) {
	e := newTestEnv(t)
	cfgPath := filepath.Join(e.vars["XDG_CONFIG_HOME"], "jarvisbot", "config.yaml")
	dataDir := e.vars["JARVIS_DATA_DIR"]

	code, out, errOut := e.jarvis(t, "", "init")
	if code != 0 {
		t.Fatalf("init exit %d, stderr %q", code, errOut)
	}
	got, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, config.Template()) {
		t.Errorf("config file is not the template")
	}
	for _, c := range []struct {
		path string
		mode os.FileMode
	}{{cfgPath, 0o600}, {filepath.Dir(cfgPath), 0o700}, {dataDir, 0o700}} {
		fi, err := os.Stat(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != c.mode {
			t.Errorf("%s mode %o, want %o", c.path, fi.Mode().Perm(), c.mode)
		}
	}
	dbFile := filepath.Join(dataDir, "jarvisbot.db")
	for _, want := range []string{cfgPath, dataDir, dbFile, "secrets set"} {
		if !strings.Contains(out, want) {
			t.Errorf("init output does not mention %q:\n%s", want, out)
		}
	}

	// The store is migrated and holds the default agent.
	a := &cli{Env: app.Env{Getenv: e.getenv}}
	cfg, err := a.LoadConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Path != cfgPath {
		t.Errorf("config loaded from %q, want %q", cfg.Path, cfgPath)
	}
	db, err := a.OpenStore(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ag, err := db.Agent(context.Background(), store.DefaultAgent)
	if err != nil || ag.Description != agents.DefaultDescription {
		t.Errorf("default agent = %+v, %v", ag, err)
	}
}

func TestInitRefusesToOverwrite(t *testing.T) {
	e := newTestEnv(t)
	cfgPath := filepath.Join(e.vars["XDG_CONFIG_HOME"], "jarvisbot", "config.yaml")
	e.mustJarvis(t, "", "init")
	edited := []byte("log_level: debug\n")
	if err := os.WriteFile(cfgPath, edited, 0o600); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name      string
		args      []string
		code      int
		stderr    []string
		unchanged bool
	}{
		{"without force", []string{"init"}, 1, []string{cfgPath, "already exists", "--force"}, true},
		{"stray argument", []string{"init", "now"}, 2, []string{"no arguments"}, true},
		{"bad flag", []string{"init", "--forse"}, 2, []string{"forse"}, true},
		{"with force", []string{"init", "--force"}, 0, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := e.jarvis(t, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, errOut)
			}
			for _, w := range tt.stderr {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q does not contain %q", errOut, w)
				}
			}
			got, _ := os.ReadFile(cfgPath)
			if tt.unchanged != bytes.Equal(got, edited) {
				t.Errorf("config file unchanged = %v, want %v", bytes.Equal(got, edited), tt.unchanged)
			}
		})
	}
}

func TestInitAtExplicitPath(t *testing.T) {
	e := newTestEnv(t)
	p := filepath.Join(filepath.Dir(e.vars["JARVIS_DATA_DIR"]), "etc", "jarvis.yaml")
	e.vars["JARVIS_CONFIG"] = p
	// Before init, the explicit path is an error that points at init.
	if code, _, errOut := e.jarvis(t, "", "secrets", "list"); code != 1 || !strings.Contains(errOut, "jarvisbot init") {
		t.Errorf("before init: exit %d, stderr %q; want 1 and a hint to run init", code, errOut)
	}
	e.mustJarvis(t, "", "init")
	if _, err := os.Stat(p); err != nil {
		t.Errorf("init did not write %s: %v", p, err)
	}
}

func TestOpenStoreSeedsAgentsFromConfig(t *testing.T) {
	ctx := context.Background()
	e := newTestEnv(t)
	e.writeConfig(t, `
agents:
  default:
    description: The owner's own words.
  research:
    description: Reads papers.
    allow: ["mcp:arxiv/*"]
    block: ["cli:rm"]
`)
	a := &cli{Env: app.Env{Getenv: e.getenv}}
	cfg, err := a.LoadConfig()
	if err != nil {
		t.Fatal(err)
	}
	db, err := a.OpenStore(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := db.Agent(ctx, "research")
	if err != nil {
		t.Fatal(err)
	}
	if r.Description != "Reads papers." || len(r.Allow) != 1 || len(r.Block) != 1 || r.Focus != nil {
		t.Errorf("research = %+v", r)
	}
	if d, _ := db.Agent(ctx, store.DefaultAgent); d.Description != "The owner's own words." {
		t.Errorf("default description = %q, want the config's", d.Description)
	}
	// An edit made after seeding survives the next start.
	r.Description = "Edited."
	if err := db.UpdateAgent(ctx, r); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = a.OpenStore(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if r, _ := db.Agent(ctx, "research"); r.Description != "Edited." {
		t.Errorf("reseeding overwrote the edit: %q", r.Description)
	}
}
