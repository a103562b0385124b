package namedir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
)

// outside is a folder beside the parent with a file that must survive.
func setup(t *testing.T) (parent, outside, keep string) {
	t.Helper()
	base := t.TempDir()
	parent = filepath.Join(base, "skills")
	outside = filepath.Join(base, "outside")
	os.MkdirAll(parent, 0o700)
	os.MkdirAll(filepath.Join(outside, "victim"), 0o700)
	keep = filepath.Join(outside, "victim", "SKILL.md")
	os.WriteFile(keep, []byte("keep me"), 0o600)
	return parent, outside, keep
}

func untouched(t *testing.T, keep string) {
	t.Helper()
	if data, err := os.ReadFile(keep); err != nil || string(data) != "keep me" {
		t.Errorf("the file outside was touched: %q %v", data, err)
	}
}

// TestCheckRefusesHostileNamesX1: only a plain name passes, before the
// kind's own rule runs.
func TestCheckRefusesHostileNamesX1(t *testing.T) {
	parent, outside, _ := setup(t)
	d := New(parent, "skill", nil)
	for _, name := range []string{"", ".", "..", "../victim", "a/b", `a\b`, "/etc", outside, "x\x00y", "x\x1b[2Jy", "x\u202ey", "x\u200by", "x\ny", strings.Repeat("a", 256), "\xff"} {
		if _, err := d.Join(name); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
			t.Errorf("Join(%q) = %v, want EINVALID", name, err)
		}
	}
	if p, err := d.Join("weekly-report"); err != nil || p != filepath.Join(parent, "weekly-report") {
		t.Errorf("plain name: %q %v", p, err)
	}
	strict := New(parent, "skill", func(n string) error {
		if n != strings.ToLower(n) {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "lower case only")
		}
		return nil
	})
	if err := strict.Check("Big"); err == nil || !strings.Contains(err.Error(), "lower case") {
		t.Errorf("the kind's rule did not run: %v", err)
	}
	agent := New(filepath.Join(parent, "agents"), "agent", nil).Sub("../..", func(p string) Dir { return New(filepath.Join(p, "skills"), "skill", nil) })
	if _, err := agent.Join("x"); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("a Sub of a refused name must refuse everything: %v", err)
	}
	if _, _, err := agent.Names(); err == nil {
		t.Error("Names of a refused Sub")
	}
}

// TestRemoveKeepsOutsideX1: removing an entry that is a link removes the
// link; a folder whose SKILL.md links out loses the link, not its target.
func TestRemoveKeepsOutsideX1(t *testing.T) {
	parent, outside, keep := setup(t)
	d := New(parent, "skill", nil)
	os.Symlink(filepath.Join(outside, "victim"), filepath.Join(parent, "linked"))
	os.MkdirAll(filepath.Join(parent, "inner"), 0o700)
	os.Symlink(keep, filepath.Join(parent, "inner", "SKILL.md"))
	os.Symlink(filepath.Join(outside, "victim"), filepath.Join(parent, "inner", "sub"))

	link, err := d.Remove("linked")
	if err != nil || !link {
		t.Fatalf("remove link: %v %v", link, err)
	}
	if link, err := d.Remove("inner"); err != nil || link {
		t.Fatalf("remove folder: %v %v", link, err)
	}
	for _, n := range []string{"linked", "inner"} {
		if _, err := os.Lstat(filepath.Join(parent, n)); !os.IsNotExist(err) {
			t.Errorf("%s is still there: %v", n, err)
		}
	}
	untouched(t, keep)
	if _, err := d.Remove("linked"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("remove missing: %v", err)
	}
	if _, err := d.Remove("../outside"); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("remove ../outside: %v", err)
	}
	untouched(t, keep)
}

// TestFolderAndMoveRefuseLinksX1: a linked entry is neither used as a
// folder nor moved; a real one moves, and never over an existing one.
func TestFolderAndMoveRefuseLinksX1(t *testing.T) {
	parent, outside, keep := setup(t)
	from := New(filepath.Join(parent, "agent"), "skill", nil)
	to := New(filepath.Join(parent, "global"), "skill", nil)
	os.MkdirAll(from.Path(), 0o700)
	os.Symlink(filepath.Join(outside, "victim"), filepath.Join(from.Path(), "victim"))
	if _, err := from.Folder("victim"); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Folder of a link: %v", err)
	}
	if _, err := from.Move("victim", to); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("Move of a link: %v", err)
	}
	untouched(t, keep)
	os.MkdirAll(filepath.Join(from.Path(), "report"), 0o700)
	dest, err := from.Move("report", to)
	if err != nil || dest != filepath.Join(to.Path(), "report") {
		t.Fatalf("Move: %q %v", dest, err)
	}
	os.MkdirAll(filepath.Join(from.Path(), "report"), 0o700)
	if _, err := from.Move("report", to); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
		t.Errorf("Move over an existing one: %v", err)
	}
	os.MkdirAll(filepath.Join(from.Path(), "Bad Name"), 0o700)
	os.MkdirAll(filepath.Join(from.Path(), ".install-1"), 0o700)
	names, refused, err := New(from.Path(), "skill", func(n string) error {
		if strings.Contains(n, " ") {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "no spaces")
		}
		return nil
	}).Names()
	if err != nil || len(names) != 1 || names[0] != "report" || len(refused) != 1 || refused[0] != "Bad Name" {
		t.Errorf("Names leaves out links and hidden folders, and reports bad names: %v %v %v", names, refused, err)
	}
}
