package skills_test

import (
	"context"
	"github.com/jarvisbot/jarvisbot/skills"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
)

// TestImportFromURLS6X2: a SKILL.md fetched by URL is imported with the
// safeguards of Import and its text as it came; a missing file, one over
// the size limit (with or without a Content-Length), a URL that is not the
// raw file, and plain http to another machine are refused with a reason.
func TestImportFromURLS6X2(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/skills/claude-review/SKILL.md":
			w.Write([]byte(claudeSkill))
		case "/skills/huge/SKILL.md":
			w.Write([]byte(strings.Repeat("a", 300<<10)))
		case "/skills/streamed/SKILL.md":
			w.(http.Flusher).Flush() // no Content-Length: the limit holds while reading
			w.Write([]byte(strings.Repeat("a", 300<<10)))
		default:
			http.Error(w, "no", http.StatusNotFound)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	got, err := skills.ImportFrom(ctx, srv.Client(), srv.URL+"/skills/claude-review/SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "claude-review" || got.Original != claudeSkill || len(got.Dropped) == 0 || got.Origin != skills.Imported {
		t.Errorf("imported %q origin %v dropped %v, text as it came: %v", got.Name, got.Origin, got.Dropped, got.Original == claudeSkill)
	}
	for _, c := range []struct{ url, want string }{
		{srv.URL + "/skills/gone/SKILL.md", "404"},
		{srv.URL + "/skills/huge/SKILL.md", "larger than"},
		{srv.URL + "/skills/streamed/SKILL.md", "larger than"},
		{srv.URL + "/skills/claude-review", "does not end in"},
		{"http://skills.example/x/SKILL.md", "use an https URL"},
	} {
		_, err := skills.ImportFrom(ctx, srv.Client(), c.url)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.url, err, c.want)
		}
	}
}

// TestInstallIsAtomicS6: skills.Install writes the folder whole, and refuses a
// destination that exists without leaving a temporary folder behind.
func TestInstallIsAtomicS6(t *testing.T) {
	dir := t.TempDir()
	in, err := skills.ImportFrom(context.Background(), nil, writeImportFolder(t, "claude-review"))
	if err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(dir, "skills", "claude-review")
	if err := skills.Install(dest, in.Skill); err != nil {
		t.Fatal(err)
	}
	if s, err := skills.Load(dest); err != nil || s.Name != "claude-review" {
		t.Fatalf("installed skill reads back as %v, %v", s, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "skills", "taken"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := skills.Install(filepath.Join(dir, "skills", "taken"), in.Skill); err == nil {
		t.Error("installed over a file")
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "skills"))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".install-") {
			t.Errorf("left behind %s", e.Name())
		}
	}
}

func writeImportFolder(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, skills.FileName), []byte(claudeSkill), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestImportFromFileNamesTheFileS6: a file that is not a SKILL.md is
// refused with what to give instead.
func TestImportFromFileNamesTheFileS6(t *testing.T) {
	p := filepath.Join(t.TempDir(), "notes.md")
	if err := os.WriteFile(p, []byte(claudeSkill), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := skills.ImportFrom(context.Background(), nil, p)
	if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "give its folder or the file itself") {
		t.Errorf("ImportFrom(notes.md) = %v", err)
	}
}
