package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The deployment files (Dockerfile, deploy/) cannot be built or started
// here, so their invariants are checked instead, against the code they
// name: they cannot rot as the code moves on (issue 20).

// repoFile reads a file from the repository's root.
func repoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readByCode reports which of names some non-test Go source of the
// repository spells as a string literal: a variable nothing reads is a
// setting that does nothing.
func readByCode(t *testing.T, names []string) map[string]bool {
	t.Helper()
	var src strings.Builder
	err := filepath.WalkDir(filepath.Join("..", ".."), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			src.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	all := src.String()
	found := map[string]bool{}
	for _, n := range names {
		found[n] = strings.Contains(all, `"`+n+`"`)
	}
	return found
}

func checkEnvRead(t *testing.T, where string, names []string) {
	t.Helper()
	for n, ok := range readByCode(t, names) {
		if !ok {
			t.Errorf("%s sets %s, which no jarvisbot code reads", where, n)
		}
	}
}

func TestDockerfileInvariants(t *testing.T) {
	df := repoFile(t, "Dockerfile")
	stages := regexp.MustCompile(`(?m)^FROM\s+(\S+)`).FindAllStringSubmatchIndex(df, -1)
	if len(stages) < 2 {
		t.Fatalf("want a build stage and a final one, got %d FROM lines", len(stages))
	}
	last := stages[len(stages)-1]
	if img := df[last[2]:last[3]]; img != "scratch" {
		t.Errorf("the final stage is FROM %s, want scratch", img)
	}
	build, final := df[:last[0]], df[last[0]:]
	for _, want := range []string{"golang:1.26", "scripts/release.sh", "ARG POSTGRES", "${POSTGRES:+--postgres}"} {
		if !strings.Contains(build, want) {
			t.Errorf("the build stage lacks %q", want)
		}
	}
	release := repoFile(t, "scripts/release.sh")
	for _, want := range []string{"CGO_ENABLED=0", "timetzdata", "nopostgres", "--postgres", "-ldflags='-s -w'", "./cmd/jarvisbot"} {
		if !strings.Contains(release, want) {
			t.Errorf("scripts/release.sh lacks %q", want)
		}
	}
	user := regexp.MustCompile(`(?m)^USER\s+(\S+)`).FindStringSubmatch(final)
	if user == nil || user[1] != "65532:65532" {
		t.Errorf("the final stage runs as %v, want USER 65532:65532 (non-root)", user)
	}
	for _, want := range []string{"ca-certificates.crt", "VOLUME /data", "JARVIS_DATA_DIR=/data", "--chown=65532:65532"} {
		if !strings.Contains(final, want) {
			t.Errorf("the final stage lacks %q", want)
		}
	}
	hc := regexp.MustCompile(`(?s)HEALTHCHECK.*?CMD\s+\[([^\]]*)\]`).FindStringSubmatch(final)
	if hc == nil {
		t.Fatal("the final stage has no HEALTHCHECK CMD [...]")
	}
	var args []string
	for _, a := range strings.Split(hc[1], ",") {
		args = append(args, strings.Trim(strings.TrimSpace(a), `"`))
	}
	if len(args) < 2 || args[0] != "/usr/local/bin/jarvisbot" || args[1] != "healthcheck" {
		t.Fatalf("HEALTHCHECK runs %q, want /usr/local/bin/jarvisbot healthcheck", args)
	}
	checkCommandLine(t, "the HEALTHCHECK", args[1:])
	var env []string
	for _, m := range regexp.MustCompile(`\b(JARVIS_[A-Z_]+)=`).FindAllStringSubmatch(final, -1) {
		env = append(env, m[1])
	}
	checkEnvRead(t, "the Dockerfile", env)
}

// checkCommandLine runs args' flags through the command's own parser
// (with --help, so nothing runs): the command and its flags exist.
func checkCommandLine(t *testing.T, where string, args []string) {
	t.Helper()
	if _, ok := commands()[args[0]]; !ok {
		t.Errorf("%s runs jarvisbot %s, which is no command", where, args[0])
		return
	}
	e := newTestEnv(t)
	if code, out, errOut := e.jarvis(t, "", append(slices.Clone(args), "--help")...); code != 0 {
		t.Errorf("%s: jarvisbot %s does not parse (exit %d): %s%s", where, strings.Join(args, " "), code, out, errOut)
	}
}

func TestComposeInvariants(t *testing.T) {
	var doc struct {
		Services map[string]struct {
			Image string `yaml:"image"`
			Build struct {
				Args map[string]string `yaml:"args"`
			} `yaml:"build"`
			Environment map[string]string `yaml:"environment"`
			Volumes     []string          `yaml:"volumes"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal([]byte(repoFile(t, "deploy/compose.yaml")), &doc); err != nil {
		t.Fatal(err)
	}
	var replicas []string
	var env []string
	for name, s := range doc.Services {
		if s.Image != "jarvisbot:local" {
			continue
		}
		replicas = append(replicas, name)
		for k, v := range s.Environment {
			env = append(env, k)
			if k == "JARVIS_DATABASE_URL" && !strings.HasPrefix(v, "postgres://") {
				t.Errorf("%s: JARVIS_DATABASE_URL %q is not a postgres:// URL", name, v)
			}
		}
		// The release build leaves PostgreSQL out unless asked.
		if s.Build.Args["POSTGRES"] == "" {
			t.Errorf("replica %s's image is built without PostgreSQL: set build arg POSTGRES", name)
		}
		for _, want := range []string{"JARVIS_DATABASE_URL", "JARVIS_TELEGRAM_WEBHOOK_LISTEN", "JARVIS_TELEGRAM_WEBHOOK_BEHIND_PROXY", "JARVIS_WEB_LISTEN", "JARVIS_WEB_BEHIND_PROXY"} {
			if _, ok := s.Environment[want]; !ok {
				t.Errorf("replica %s does not set %s", name, want)
			}
		}
	}
	if len(replicas) < 2 {
		t.Errorf("compose runs %d jarvisbot replicas, want two", len(replicas))
	}
	if _, ok := doc.Services["postgres"]; !ok {
		t.Error("compose runs no postgres service")
	}
	slices.Sort(env)
	checkEnvRead(t, "deploy/compose.yaml", slices.Compact(env))

	// The proxy balances over every replica, on the webhook's path.
	caddy := repoFile(t, "deploy/Caddyfile")
	for _, r := range replicas {
		if !strings.Contains(caddy, r+":8443") || !strings.Contains(caddy, r+":8780") {
			t.Errorf("the Caddyfile does not balance over %s's webhook and web listeners", r)
		}
	}
	for _, s := range doc.Services {
		if u := s.Environment["JARVIS_TELEGRAM_WEBHOOK_URL"]; u != "" {
			path := "/" + strings.SplitN(strings.SplitN(u, "//", 2)[1], "/", 2)[1]
			if !strings.Contains(caddy, "handle "+path) {
				t.Errorf("the Caddyfile does not route the webhook's path %s", path)
			}
		}
	}
	if !strings.Contains(caddy, "health_uri /readyz") {
		t.Error("the Caddyfile does not take out replicas that are not ready")
	}
}

func TestSystemdUnitInvariants(t *testing.T) {
	unit := repoFile(t, "deploy/jarvisbot.service")
	keys := map[string][]string{}
	for _, line := range strings.Split(unit, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			keys[k] = append(keys[k], v)
		}
	}
	exec := strings.Fields(strings.Join(keys["ExecStart"], ""))
	if len(exec) < 2 || filepath.Base(exec[0]) != "jarvisbot" {
		t.Fatalf("ExecStart %q does not run jarvisbot", exec)
	}
	checkCommandLine(t, "ExecStart", exec[1:])
	for k, want := range map[string]string{"Restart": "on-failure", "DynamicUser": "yes", "StateDirectory": "jarvisbot",
		"NoNewPrivileges": "yes", "ProtectSystem": "strict", "ProtectHome": "yes", "PrivateTmp": "yes"} {
		if !slices.Contains(keys[k], want) {
			t.Errorf("the unit has %s=%v, want %s", k, keys[k], want)
		}
	}
	if len(keys["EnvironmentFile"]) == 0 {
		t.Error("the unit reads no EnvironmentFile: secrets would go in the unit")
	}
	var env []string
	for _, e := range keys["Environment"] {
		if name, _, ok := strings.Cut(e, "="); ok {
			env = append(env, name)
		}
	}
	if !slices.Contains(env, "JARVIS_DATA_DIR") {
		t.Error("the unit does not point JARVIS_DATA_DIR at its state directory")
	}
	checkEnvRead(t, "the unit", slices.DeleteFunc(env, func(n string) bool { return n == "HOME" }))
}

// TestDockerignoreKeepsTheBuild: nothing the build reads is left out of
// the image's build context: the module files and every embedded folder.
func TestDockerignoreKeepsTheBuild(t *testing.T) {
	var patterns []string
	for _, line := range strings.Split(repoFile(t, ".dockerignore"), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			patterns = append(patterns, strings.TrimPrefix(line, "**/"))
		}
	}
	needed := []string{"go.mod", "go.sum", "cmd/jarvisbot/main.go", "web/static", "skills/shipped", "plugins/shipped",
		"store/sqlstore/migrations", "internal/words/lists", "internal/words/thesaurus.packed", "internal/words/families.txt", "plugins/plugin.schema.json"}
	for _, n := range needed {
		for _, p := range patterns {
			// A pattern excludes the path or any folder above it.
			for dir := n; dir != "."; dir = filepath.Dir(dir) {
				if ok, _ := filepath.Match(p, dir); ok {
					t.Errorf(".dockerignore's %q leaves %s out of the build", p, n)
				}
			}
		}
	}
}
