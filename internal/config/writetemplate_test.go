package config

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
)

// TestWriteTemplateOwnerOnly: the template lands whole at path, 0600 in a
// 0700 folder, with no temporary file left; an existing config is left
// alone unless forced; a folder in its place is refused.
func TestWriteTemplateOwnerOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "jarvisbot")
	path := filepath.Join(dir, "config.yaml")
	if err := WriteTemplate(path, false); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, Template()) {
		t.Fatalf("written %d bytes (%v), want the template", len(got), err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("config mode %v, want 0600", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v, want 0700", fi.Mode().Perm())
	}
	os.WriteFile(path, []byte("log_level: debug\n"), 0o600)
	if err := WriteTemplate(path, false); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT || !strings.Contains(err.Error(), "--force") {
		t.Errorf("over an existing config: %v, want ECONFLICT naming --force", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "log_level: debug\n" {
		t.Errorf("an existing config was changed without --force")
	}
	if err := WriteTemplate(path, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, Template()) {
		t.Errorf("--force did not write the template")
	}
	if err := WriteTemplate(dir, true); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("a folder in the config's place: %v, want EINVALID", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".config-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
