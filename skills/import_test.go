package skills_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/skills"
)

// claudeSkill is a Claude Code skill that asks for everything it can.
const claudeSkill = `---
name: claude-review
description: Reviews code for bugs. Use before merging.
when_to_use: When the user asks for a review.
argument-hint: "[file]"
license: Apache-2.0
compatibility: Designed for Claude Code
disable-model-invocation: true
allowed-tools: Read Grep Bash(git diff *)
disallowed-tools: Write
hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: ./check.sh
model: opus
effort: high
context: fork
agent: Explore
paths: "src/**/*.go"
shell: bash
arguments: [file]
user-invocable: false
version: 1.0.0
metadata:
  author: someone
  jarvisbot.words: hello, anything
  jarvisbot.tier: safe
  JarvisBot.Schedule: "* * * * *"
  jarvisbot.does: tools
  jarvisbot:
    voice: true
---
# Review

Run ` + "`!git diff`" + ` and read it.
`

// TestImportClaudeCodeS6: only descriptive fields survive an import; every
// field that would grant behaviour is dropped and listed, in file order.
func TestImportClaudeCodeS6(t *testing.T) {
	s, err := skills.Import("inbox/claude-review/SKILL.md", []byte(claudeSkill))
	if err != nil {
		t.Fatal(err)
	}
	kept := skills.Skill{
		Name: s.Name, Description: s.Description, WhenToUse: s.WhenToUse, ArgumentHint: s.ArgumentHint,
		License: s.License, Compatibility: s.Compatibility, Metadata: s.Metadata,
		DisableModelInvocation: s.DisableModelInvocation, Does: s.Does, Tier: s.Tier, Origin: s.Origin,
		AllowedTools: s.AllowedTools, Words: s.Words, Schedule: s.Schedule, Voice: s.Voice,
	}
	want := skills.Skill{
		Name: "claude-review", Description: "Reviews code for bugs. Use before merging.",
		WhenToUse: "When the user asks for a review.", ArgumentHint: "[file]", License: "Apache-2.0",
		Compatibility: "Designed for Claude Code", Metadata: map[string]string{"author": "someone"},
		DisableModelInvocation: true, Does: skills.KindInstructions, Tier: "", Origin: skills.Imported,
	}
	if !reflect.DeepEqual(kept, want) {
		t.Errorf("kept %+v\nwant %+v", kept, want)
	}
	var fields []string
	for _, d := range s.Dropped {
		if d.Reason == "" {
			t.Errorf("%s dropped without a reason", d.Field)
		}
		fields = append(fields, d.Field)
	}
	wantDropped := []string{
		"allowed-tools", "disallowed-tools", "hooks", "model", "effort", "context", "agent", "paths",
		"shell", "arguments", "user-invocable", "version",
		"metadata.jarvisbot.words", "metadata.jarvisbot.tier", "metadata.JarvisBot.Schedule",
		"metadata.jarvisbot.does", "metadata.jarvisbot",
	}
	if !reflect.DeepEqual(fields, wantDropped) {
		t.Errorf("dropped %q\nwant    %q", fields, wantDropped)
	}
	if !strings.Contains(s.Body, "!git diff") || s.Headings[0] != "Review" {
		t.Errorf("body %q headings %q", s.Body, s.Headings)
	}
}

// TestImportNameFromFolderS6: Claude Code lets the name default to the
// folder; an import does too, but never to an invalid one.
func TestImportNameFromFolderS6(t *testing.T) {
	s, err := skills.Import("x/deploy-check/SKILL.md", []byte("---\ndescription: d\n---\n"))
	if err != nil || s.Name != "deploy-check" {
		t.Fatalf("Import = %+v, %v", s, err)
	}
	for _, tt := range []struct{ path, src, want string }{
		{"x/Deploy Check/SKILL.md", "---\ndescription: d\n---\n", "x/Deploy Check/SKILL.md:1: name: missing"},
		{"x/etc/SKILL.md", "---\nname: ../../etc\ndescription: d\n---\n", "x/etc/SKILL.md:2: name: \"../../etc\" may hold only"},
		{"x/a/SKILL.md", "---\nname: b\ndescription: d\n---\n", "x/a/SKILL.md:2: name: \"b\" does not match its folder \"a\""},
		{"x/a/SKILL.md", "---\nname: a\n---\n", "x/a/SKILL.md:1: description: missing"},
		{"x/a/SKILL.md", "---\nname: a\ndescription: d\ndisable-model-invocation: 2\n---\n", "x/a/SKILL.md:4: disable-model-invocation: want true or false"},
		{"x/a/SKILL.md", "---\nname: a\n", "x/a/SKILL.md:1: front matter: opened but never closed"},
		{"x/a/SKILL.md", "MZ\x90\x00\x03", "x/a/SKILL.md: is a binary file"},
	} {
		_, err := skills.Import(tt.path, []byte(tt.src))
		if err == nil || !strings.Contains(err.Error(), tt.want) || jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
			t.Errorf("Import(%s) error %v, want EINVALID containing %q", tt.path, err, tt.want)
		}
	}
}

// TestImportIgnoresBadOwnFieldsS6: our fields are dropped before they are
// checked, so an imported file cannot fail on them, nor pass through them.
func TestImportIgnoresBadOwnFieldsS6(t *testing.T) {
	s, err := skills.Import("x/a/SKILL.md", []byte("---\nname: a\ndescription: d\nmetadata:\n  jarvisbot.tier: root\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Tier != "" || len(s.Dropped) != 1 || s.Dropped[0].Field != "metadata.jarvisbot.tier" {
		t.Errorf("got %+v", s)
	}
}

func TestImportCodexPolicyS6(t *testing.T) {
	policy := `interface:
  display_name: "Deploy"
  icon_small: "./assets/icon.png"
policy:
  allow_implicit_invocation: false
dependencies:
  tools:
    - type: "mcp"
      value: "vercel"
      url: "https://mcp.vercel.com"
permissions:
  network: true
extra: 1
`
	got := skills.ImportCodexPolicy([]byte(policy))
	var fields []string
	for _, d := range got {
		if d.Reason == "" {
			t.Errorf("%s without a reason", d.Field)
		}
		fields = append(fields, d.Field)
	}
	want := []string{"agents/openai.yaml:interface", "agents/openai.yaml:policy", "agents/openai.yaml:dependencies", "agents/openai.yaml:permissions", "agents/openai.yaml:extra"}
	if !reflect.DeepEqual(fields, want) {
		t.Errorf("dropped %q, want %q", fields, want)
	}
	for _, bad := range []string{"interface: [", "- a\n- b\n", "\x00\x01", strings.Repeat("a", skills.MaxFileSize+1)} {
		if got := skills.ImportCodexPolicy([]byte(bad)); len(got) != 1 || got[0].Field != skills.CodexPolicyFile {
			t.Errorf("ImportCodexPolicy(%.20q) = %+v, want the whole file dropped", bad, got)
		}
	}
	if got := skills.ImportCodexPolicy(nil); got != nil {
		t.Errorf("empty file dropped %+v", got)
	}
}

// TestImportDirS6: a Codex skill folder's agents/openai.yaml is read from
// inside the folder only, and all of it is dropped.
func TestImportDirS6(t *testing.T) {
	root := t.TempDir()
	dir := writeSkill(t, root, "deploy", "---\nname: deploy\ndescription: Deploys.\nmodel: gpt-5\n---\n")
	os.MkdirAll(filepath.Join(dir, "agents"), 0o755)
	os.WriteFile(filepath.Join(dir, "agents", "openai.yaml"), []byte("policy:\n  allow_implicit_invocation: true\n"), 0o644)

	s, _, err := skills.ImportDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Dropped) != 2 || s.Dropped[0].Field != "model" || s.Dropped[1].Field != "agents/openai.yaml:policy" {
		t.Errorf("dropped %+v", s.Dropped)
	}

	// An openai.yaml that is a symlink out of the folder is refused.
	escape := writeSkill(t, root, "escape", "---\nname: escape\ndescription: d\n---\n")
	secret := filepath.Join(t.TempDir(), "secret.yaml")
	os.WriteFile(secret, []byte("policy: {}\n"), 0o644)
	os.MkdirAll(filepath.Join(escape, "agents"), 0o755)
	if err := os.Symlink(secret, filepath.Join(escape, "agents", "openai.yaml")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if _, _, err := skills.ImportDir(escape); err == nil || jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("ImportDir through an escaping symlink: %v, want EINVALID", err)
	}
	if _, _, err := skills.ImportDir(filepath.Join(root, "missing")); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("ImportDir(missing) = %v, want ENOTFOUND", err)
	}
}
