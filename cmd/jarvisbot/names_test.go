package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileNames are names a command must refuse before they become a path
// (X1). dataRel are relative escapes that lead from a folder of the data
// directory to a sibling folder the test watches.
func hostileNames(outside string) []string {
	return []string{
		"..", ".", "", "a/b", `a\b`, outside, "/etc/passwd",
		"x\x00y", "x\x1b[2Jy", "x\u202ey", "x\ny", strings.Repeat("a", 300),
	}
}

// watch is a folder outside the data directory with a file that must
// survive every command.
type watch struct{ dir, file string }

func newWatch(t *testing.T, skill string) watch {
	t.Helper()
	dir := filepath.Join(t.TempDir(), skill)
	os.MkdirAll(dir, 0o700)
	file := filepath.Join(dir, "SKILL.md")
	os.WriteFile(file, []byte("---\nname: "+skill+"\ndescription: Outside the data directory.\n---\nkeep me\n"), 0o600)
	return watch{dir: dir, file: file}
}

func (w watch) untouched(t *testing.T, after string) {
	t.Helper()
	data, err := os.ReadFile(w.file)
	if err != nil || !strings.Contains(string(data), "keep me") {
		t.Errorf("after %s the file outside (%s) was touched: %v", after, w.file, err)
	}
}

// TestSkillsRemoveStaysInItsFolderX1: skills remove accepts only a plain
// name; "../x" cannot reach a skill beside the skills folder; a skill
// folder that is a link loses the link, never what it leads to; a
// SKILL.md that is a link is removed as a link.
func TestSkillsRemoveStaysInItsFolderX1(t *testing.T) {
	e := newTestEnv(t)
	data := e.vars["JARVIS_DATA_DIR"]
	skillsRoot := filepath.Join(data, "skills")
	os.MkdirAll(skillsRoot, 0o700)
	// A skill folder beside skills/, inside the data directory.
	beside := filepath.Join(data, "victim")
	os.MkdirAll(beside, 0o700)
	os.WriteFile(filepath.Join(beside, "SKILL.md"), []byte("---\nname: victim\ndescription: x\n---\nkeep me\n"), 0o600)
	besideWatch := watch{dir: beside, file: filepath.Join(beside, "SKILL.md")}
	out := newWatch(t, "outside")

	names := append(hostileNames(out.dir), "../victim", "../../"+filepath.Base(filepath.Dir(out.dir))+"/outside")
	for _, name := range names {
		code, _, errOut := e.jarvis(t, "", "skills", "remove", name)
		if code == 0 {
			t.Errorf("skills remove %q succeeded", name)
		} else if errOut == "" {
			t.Errorf("skills remove %q: no reason given", name)
		}
		besideWatch.untouched(t, "skills remove "+name)
		out.untouched(t, "skills remove "+name)
	}

	// A skill folder that is a link to a folder outside.
	if err := os.Symlink(out.dir, filepath.Join(skillsRoot, "linked")); err != nil {
		t.Fatal(err)
	}
	code, stdout, errOut := e.jarvis(t, "", "skills", "remove", "linked")
	if code != 0 {
		t.Fatalf("remove a linked skill folder: exit %d %s", code, errOut)
	}
	if _, err := os.Lstat(filepath.Join(skillsRoot, "linked")); !os.IsNotExist(err) {
		t.Errorf("the link is still there: %v", err)
	}
	if !strings.Contains(stdout, "link") {
		t.Errorf("the output does not say a link was removed: %s", stdout)
	}
	out.untouched(t, "skills remove linked")
	if entries, err := os.ReadDir(out.dir); err != nil || len(entries) != 1 {
		t.Errorf("the linked folder's contents changed: %v %v", entries, err)
	}

	// A skill folder whose SKILL.md links to a file outside.
	inner := filepath.Join(skillsRoot, "inner")
	os.MkdirAll(inner, 0o700)
	os.Symlink(out.file, filepath.Join(inner, "SKILL.md"))
	e.mustJarvis(t, "", "skills", "remove", "inner")
	if _, err := os.Lstat(inner); !os.IsNotExist(err) {
		t.Errorf("the skill folder is still there: %v", err)
	}
	out.untouched(t, "skills remove inner")
}

// TestSkillsPromoteStaysInItsFolderX1: promote takes a plain skill name
// and a valid agent name; it neither reads nor moves a folder reached
// through "..", nor one that is a link.
func TestSkillsPromoteStaysInItsFolderX1(t *testing.T) {
	e := newTestEnv(t)
	e.writeConfig(t, "agents:\n  writer:\n    description: Writes my weekly reports.\n")
	data := e.vars["JARVIS_DATA_DIR"]
	agentSkills := filepath.Join(data, "agents", "writer", "skills")
	os.MkdirAll(agentSkills, 0o700)
	out := newWatch(t, "evil")
	rel, err := filepath.Rel(agentSkills, out.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range append(hostileNames(out.dir), rel) {
		if code, _, _ := e.jarvis(t, "", "skills", "promote", name, "--agent", "writer"); code == 0 {
			t.Errorf("skills promote %q succeeded", name)
		}
		out.untouched(t, "skills promote "+name)
	}
	// The agent's name is a path too.
	for _, agent := range []string{"..", "../..", "writer/../..", out.dir} {
		if code, _, _ := e.jarvis(t, "", "skills", "promote", "evil", "--agent", agent); code == 0 {
			t.Errorf("skills promote --agent %q succeeded", agent)
		}
		if code, _, _ := e.jarvis(t, "", "skills", "list", "--agent", agent); code == 0 {
			t.Errorf("skills list --agent %q succeeded", agent)
		}
		out.untouched(t, "skills promote --agent "+agent)
	}
	// A skill folder of the agent that is a link to a folder outside.
	os.Symlink(out.dir, filepath.Join(agentSkills, "evil"))
	code, _, errOut := e.jarvis(t, "", "skills", "promote", "evil", "--agent", "writer")
	if code == 0 || !strings.Contains(errOut, "symbolic link") {
		t.Errorf("promote a linked folder: exit %d %s", code, errOut)
	}
	out.untouched(t, "skills promote evil")
	if _, err := os.Lstat(filepath.Join(data, "skills", "evil")); !os.IsNotExist(err) {
		t.Errorf("something reached the owner's skills: %v", err)
	}
}

// TestMCPImportTooLargeSizeLimit: an mcp.json to import that is over the
// limit is refused before it is read, naming the file, its size and the
// limit.
func TestMCPImportTooLargeSizeLimit(t *testing.T) {
	e := newTestEnv(t)
	path := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 3<<30); err != nil { // sparse: costs no disk
		t.Fatal(err)
	}
	code, _, errOut := e.jarvis(t, "", "mcp", "import", path)
	if code == 0 {
		t.Fatal("a 3 GiB import was accepted")
	}
	for _, want := range []string{path, "is too large: 3 GiB (3221225472 bytes)", "at most 1 MiB"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("error %q does not say %q", errOut, want)
		}
	}
}

// TestSkillsInstallIntoLinkX1: when the skill's place in the owner's
// folder is a link to a folder outside, install refuses and writes
// nothing through it.
func TestSkillsInstallIntoLinkX1(t *testing.T) {
	e := newTestEnv(t)
	src := skillSource(t, "pdf-tools", claudeSkill)
	out := newWatch(t, "pdf-tools")
	skillsRoot := filepath.Join(e.vars["JARVIS_DATA_DIR"], "skills")
	os.MkdirAll(skillsRoot, 0o700)
	os.Symlink(out.dir, filepath.Join(skillsRoot, "pdf-tools"))
	if code, _, errOut := e.jarvis(t, "", "skills", "install", src, "--yes"); code == 0 || !strings.Contains(errOut, "installed already") {
		t.Errorf("install over a link: exit %d %s", code, errOut)
	}
	out.untouched(t, "skills install")
}
