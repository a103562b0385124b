package skills_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/skills"
)

const ownManual = `---
name: github
description: Work with GitHub repositories, issues and pull requests.
license: MIT
compatibility: Needs the GitHub plugin connected.
allowed-tools: mcp:github/search_issues Bash(gh pr view *)
metadata:
  author: jarvisbot
  version: "1.0"
  jarvisbot.plugin: github
  jarvisbot.words: github, repo, pull request
  jarvisbot.words-de:
    - Repository
    - Pull-Request, Zweig
  jarvisbot.related: code review, merge
  jarvisbot.tier: ask
  jarvisbot.schedule: "0 7 * * 1-5"
  jarvisbot.timezone: Europe/Berlin
  jarvisbot.voice: "true"
  jarvisbot.does: background
---
# GitHub

Read first.

` + "```sh\n# not a heading\n```\n" + `
## Confirm before destructive actions ##
`

// TestParseOwnSkillS1: an own skill honours every jarvisbot field under
// metadata, and keeps the other apps' metadata apart.
func TestParseOwnSkillS1(t *testing.T) {
	s, err := skills.Parse("skills/github/SKILL.md", []byte(ownManual))
	if err != nil {
		t.Fatal(err)
	}
	want := &skills.Skill{
		Name:          "github",
		Description:   "Work with GitHub repositories, issues and pull requests.",
		License:       "MIT",
		Compatibility: "Needs the GitHub plugin connected.",
		Metadata:      map[string]string{"author": "jarvisbot", "version": "1.0"},
		Body:          strings.SplitN(ownManual, "---\n", 3)[2],
		Dir:           "skills/github",
		Path:          "skills/github/SKILL.md",
		Headings:      []string{"GitHub", "Confirm before destructive actions"},
		AllowedTools:  []string{"mcp:github/search_issues", "Bash(gh pr view *)"},
		Plugin:        "github",
		Words:         []string{"github", "repo", "pull request"},
		WordsDE:       []string{"Repository", "Pull-Request", "Zweig"},
		Related:       []string{"code review", "merge"},
		Tier:          catalog.TierAsk,
		Schedule:      "0 7 * * 1-5",
		TimeZone:      "Europe/Berlin",
		Voice:         true,
		Does:          skills.KindBackground,
		Origin:        skills.Own,
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("got  %+v\nwant %+v", s, want)
	}
}

// TestParsePlainAgentSkillS1: a file in the plain Agent Skills format is an
// instruction-only skill with the default tier.
func TestParsePlainAgentSkillS1(t *testing.T) {
	src := "---\nname: pdf-processing\ndescription: Extract text from PDFs.\nversion: 2\n---\nSteps.\n"
	s, err := skills.Parse("x/pdf-processing/SKILL.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if s.Does != skills.KindInstructions || s.Tier != "" || s.Metadata != nil || s.Body != "Steps.\n" || s.Headings != nil {
		t.Errorf("got %+v", s)
	}
	// Unknown top-level fields are reported and ignored.
	if len(s.Dropped) != 1 || s.Dropped[0].Field != "version" {
		t.Errorf("dropped = %+v, want version", s.Dropped)
	}
}

// TestKindS4: what a skill does comes from allowed-tools unless it says.
func TestKindS4(t *testing.T) {
	for _, tt := range []struct {
		name, front string
		want        skills.Kind
		tools       []string
	}{
		{"no tools", "", skills.KindInstructions, nil},
		{"tools string", "allowed-tools: Read, Grep Bash(git diff *)\n", skills.KindTools, []string{"Read", "Grep", "Bash(git diff *)"}},
		{"tools list", "allowed-tools:\n  - Read\n  - \"Bash(git:*)\"\n", skills.KindTools, []string{"Read", "Bash(git:*)"}},
		{"override", "allowed-tools: Read\nmetadata:\n  jarvisbot.does: instructions\n", skills.KindInstructions, []string{"Read"}},
		{"background", "metadata:\n  jarvisbot.does: Background\n", skills.KindBackground, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := skills.Parse("a/k/SKILL.md", []byte("---\nname: k\ndescription: d\n"+tt.front+"---\n"))
			if err != nil {
				t.Fatal(err)
			}
			if s.Does != tt.want || !reflect.DeepEqual(s.AllowedTools, tt.tools) {
				t.Errorf("does %q tools %q, want %q %q", s.Does, s.AllowedTools, tt.want, tt.tools)
			}
		})
	}
}

// TestParseErrors: every refusal is EINVALID and names file, line and field.
func TestParseErrors(t *testing.T) {
	const path = "skills/github/SKILL.md"
	head := "---\nname: github\ndescription: d\n"
	for _, tt := range []struct {
		name string
		path string // default path
		src  string
		want string
	}{
		{name: "no front matter", src: "# GitHub\n", want: path + ":1: front matter: missing"},
		{name: "empty file", src: "", want: path + ":1: front matter: missing"},
		{name: "front matter after text", src: "\n---\nname: github\n---\n", want: path + ":1: front matter: missing"},
		{name: "unterminated", src: "---\nname: github\ndescription: d\n", want: path + ":1: front matter: opened but never closed"},
		{name: "malformed yaml", src: "---\nname: github\ndescription: [unclosed\n---\n", want: path + ":3: front matter: malformed YAML"},
		{name: "mapping in a value", src: "---\nname: github\ndescription: a: b\n---\n", want: path + ":3: front matter: malformed YAML: mapping values are not allowed"},
		{name: "mapping on the first line", src: "---\nname: a: b\n---\n", want: path + ":2: front matter: malformed YAML"},
		{name: "tab indentation", src: "---\nname: github\n\tdescription: d\n---\n", want: path + ":3: front matter: malformed YAML"},
		{name: "unclosed quote", src: "---\nname: github\ndescription: \"d\n---\n", want: path + ":3: front matter: malformed YAML"},
		{name: "broken list", src: "---\nname: github\ndescription: d\nallowed-tools:\n  - Read\n  Grep\n---\n", want: path + ":6: front matter: malformed YAML"},
		{name: "bad indentation", src: "---\nname: github\n  description: d\n---\n", want: path + ":3: front matter: malformed YAML"},
		{name: "not a mapping", src: "---\n- name\n- description\n---\n", want: path + ":2: front matter: is not a mapping"},
		{name: "empty front matter", src: "---\n---\nbody\n", want: path + ":1: name: missing"},
		{name: "missing name", src: "---\ndescription: d\n---\n", want: path + ":1: name: missing"},
		{name: "null name", src: "---\nname:\ndescription: d\n---\n", want: path + ":1: name: missing"},
		{name: "name is a list", src: "---\nname: [a]\ndescription: d\n---\n", want: path + ":2: name: want text"},
		{name: "uppercase name", path: "s/GitHub/SKILL.md", src: "---\nname: GitHub\ndescription: d\n---\n", want: "s/GitHub/SKILL.md:2: name: \"GitHub\" may hold only lowercase"},
		{name: "leading hyphen", path: "s/-gh/SKILL.md", src: "---\nname: -gh\ndescription: d\n---\n", want: ":2: name: \"-gh\" must not start or end with a hyphen"},
		{name: "trailing hyphen", path: "s/gh-/SKILL.md", src: "---\nname: gh-\ndescription: d\n---\n", want: ":2: name: \"gh-\" must not start or end"},
		{name: "double hyphen", path: "s/g--h/SKILL.md", src: "---\nname: g--h\ndescription: d\n---\n", want: ":2: name: \"g--h\" must not contain two hyphens"},
		{name: "long name", path: "s/" + strings.Repeat("a", 65) + "/SKILL.md", src: "---\nname: " + strings.Repeat("a", 65) + "\ndescription: d\n---\n", want: ":2: name: \"" + strings.Repeat("a", 65) + "\" is 65 characters long"},
		{name: "path traversal name", path: "skills/etc/SKILL.md", src: "---\nname: ../../etc\ndescription: d\n---\n", want: ":2: name: \"../../etc\" may hold only lowercase"},
		{name: "slash in name", src: "---\nname: a/github\ndescription: d\n---\n", want: path + ":2: name: \"a/github\" may hold only"},
		{name: "folder mismatch", src: "---\ndescription: d\nname: gitlab\n---\n", want: path + ":3: name: \"gitlab\" does not match its folder \"github\""},
		{name: "missing description", src: "---\nname: github\n---\n", want: path + ":1: description: missing"},
		{name: "blank description", src: "---\nname: github\ndescription: \"  \"\n---\n", want: path + ":3: description: missing"},
		{name: "long description", src: "---\nname: github\ndescription: " + strings.Repeat("é", 1025) + "\n---\n", want: path + ":3: description: is 1025 characters long, at most 1024"},
		{name: "long compatibility", src: head + "compatibility: " + strings.Repeat("x", 501) + "\n---\n", want: path + ":4: compatibility: is 501 characters long, at most 500"},
		{name: "duplicate field", src: head + "name: github\n---\n", want: path + ":4: name: appears twice (first on line 2)"},
		{name: "description mapping", src: "---\nname: github\ndescription:\n  a: b\n---\n", want: path + ":4: description: want text, got a mapping"},
		{name: "bad disable flag", src: head + "disable-model-invocation: maybe\n---\n", want: path + ":4: disable-model-invocation: want true or false"},
		{name: "metadata list", src: head + "metadata: [a, b]\n---\n", want: path + ":4: metadata: want a mapping"},
		{name: "duplicate metadata", src: head + "metadata:\n  jarvisbot.tier: ask\n  JARVISBOT.TIER: safe\n---\n", want: path + ":6: metadata.JARVISBOT.TIER: appears twice"},
		{name: "bad tier", src: head + "metadata:\n  jarvisbot.tier: root\n---\n", want: path + ":5: metadata.jarvisbot.tier: unknown tier \"root\""},
		{name: "bad kind", src: head + "metadata:\n  jarvisbot.does: everything\n---\n", want: path + ":5: metadata.jarvisbot.does: unknown kind \"everything\""},
		{name: "empty schedule", src: head + "metadata:\n  jarvisbot.schedule: \" \"\n---\n", want: path + ":5: metadata.jarvisbot.schedule: is empty"},
		{name: "bad voice", src: head + "metadata:\n  jarvisbot.voice: loud\n---\n", want: path + ":5: metadata.jarvisbot.voice: want true or false"},
		{name: "words mapping", src: head + "metadata:\n  jarvisbot.words:\n    a: b\n---\n", want: path + ":6: metadata.jarvisbot.words: want words separated by commas"},
		{name: "timezone alone", src: head + "metadata:\n  jarvisbot.timezone: Europe/Berlin\n---\n", want: path + ":4: metadata.jarvisbot.timezone: set without jarvisbot.schedule"},
		{name: "allowed-tools mapping", src: head + "allowed-tools:\n  a: b\n---\n", want: path + ":5: allowed-tools: want tool names"},
		{name: "huge file", src: head + "---\n" + strings.Repeat("x", skills.MaxFileSize), want: path + " is too large: 256 KiB (262180 bytes), where a SKILL.md may be at most 256 KiB (262144 bytes)"},
		{name: "NUL byte", src: head + "---\nbody\x00", want: path + ": is a binary file"},
		{name: "invalid UTF-8", src: head + "---\n\xff\xfe", want: path + ": is a binary file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := path
			if tt.path != "" {
				p = tt.path
			}
			s, err := skills.Parse(p, []byte(tt.src))
			if err == nil {
				t.Fatalf("parsed %+v, want error %q", s, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q\nwant it to contain %q", err, tt.want)
			}
			if c := jarvisbot.ErrorCode(err); c != jarvisbot.EINVALID {
				t.Errorf("code %q, want %q", c, jarvisbot.EINVALID)
			}
		})
	}
}

// TestParseLenient: what other apps write and the format allows is read.
func TestParseLenient(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		check     func(*skills.Skill) bool
	}{
		{"CRLF and BOM", "\ufeff---\r\nname: g\r\ndescription: d\r\n---\r\nbody\r\n", func(s *skills.Skill) bool { return s.Description == "d" && s.Body == "body\r\n" }},
		{"no body", "---\nname: g\ndescription: d\n---", func(s *skills.Skill) bool { return s.Body == "" }},
		{"delimiter with trailing space", "---  \nname: g\ndescription: d\n--- \nb", func(s *skills.Skill) bool { return s.Body == "b" }},
		{"numeric metadata", "---\nname: g\ndescription: d\nmetadata:\n  version: 1.0\n  empty:\n---\n", func(s *skills.Skill) bool {
			return s.Metadata["version"] == "1.0" && s.Metadata["empty"] == "" && len(s.Metadata) == 2
		}},
		{"nested metadata dropped", "---\nname: g\ndescription: d\nmetadata:\n  tags: [a, b]\n---\n", func(s *skills.Skill) bool {
			return s.Metadata == nil && len(s.Dropped) == 1 && s.Dropped[0].Field == "metadata.tags"
		}},
		{"unquoted argument hint", "---\nname: g\ndescription: d\nargument-hint: [file or directory]\n---\n", func(s *skills.Skill) bool { return s.ArgumentHint == "[file or directory]" }},
		{"alias", "---\nname: &n g\ndescription: *n\n---\n", func(s *skills.Skill) bool { return s.Description == "g" }},
		{"unknown jarvisbot key", "---\nname: g\ndescription: d\nmetadata:\n  jarvisbot.word: x\n---\n", func(s *skills.Skill) bool {
			return len(s.Dropped) == 1 && s.Dropped[0].Field == "metadata.jarvisbot.word"
		}},
		{"disable model invocation", "---\nname: g\ndescription: d\ndisable-model-invocation: true\n---\n", func(s *skills.Skill) bool { return s.DisableModelInvocation }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := skills.Parse("skills/g/SKILL.md", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(s) {
				t.Errorf("got %+v", s)
			}
		})
	}
}

func TestHeadings(t *testing.T) {
	body := "# One\ntext #not\n##Two\n   ### Three ###\n    # indented code\n~~~~\n# fenced\n~~~\n# still fenced\n~~~~\n###### Six\n####### seven\n## C#\n#\n"
	s, err := skills.Parse("s/h/SKILL.md", []byte("---\nname: h\ndescription: d\n---\n"+body))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"One", "Three", "Six", "C#"}; !reflect.DeepEqual(s.Headings, want) {
		t.Errorf("headings %q, want %q", s.Headings, want)
	}
}

// writeSkill creates root/name/SKILL.md and returns the folder.
func writeSkill(t *testing.T, root, name, src string) string {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, skills.FileName), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestLoad: Load reads a folder's SKILL.md and refuses what could make it
// read another file.
func TestLoad(t *testing.T) {
	root := t.TempDir()
	good := writeSkill(t, root, "github", ownManual)
	outside := writeSkill(t, t.TempDir(), "secret", "---\nname: github\ndescription: d\n---\n")

	linked := filepath.Join(root, "linked")
	os.Mkdir(linked, 0o755)
	if err := os.Symlink(filepath.Join(outside, skills.FileName), filepath.Join(linked, skills.FileName)); err != nil {
		t.Skip("no symlinks here:", err)
	}
	inner := writeSkill(t, root, "inner", "---\nname: inner\ndescription: d\n---\n")
	os.Rename(filepath.Join(inner, skills.FileName), filepath.Join(inner, "real.md"))
	os.Symlink("real.md", filepath.Join(inner, skills.FileName))

	isDir := filepath.Join(root, "isdir")
	os.MkdirAll(filepath.Join(isDir, skills.FileName), 0o755)

	huge := writeSkill(t, root, "huge", "")
	if err := os.Truncate(filepath.Join(huge, skills.FileName), skills.MaxFileSize+1); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(root, "empty")
	os.Mkdir(empty, 0o755)

	if s, err := skills.Load(good); err != nil || s.Name != "github" || s.Path != filepath.Join(good, skills.FileName) {
		t.Fatalf("Load(good) = %+v, %v", s, err)
	}
	for _, tt := range []struct {
		name, dir string
		code      jarvisbot.Code
		want      string
	}{
		{"missing file", empty, jarvisbot.ENOTFOUND, "SKILL.md: not found"},
		{"missing folder", filepath.Join(root, "nope"), jarvisbot.ENOTFOUND, "does not exist"},
		{"symlink out of the folder", linked, jarvisbot.EINVALID, "is a symbolic link"},
		{"symlink inside the folder", inner, jarvisbot.EINVALID, "is a symbolic link"},
		{"directory", isDir, jarvisbot.EINVALID, "is not a regular file"},
		{"huge", huge, jarvisbot.EINVALID, "too large"},
		{"traversal", filepath.Join(root, "github", "..", "..", "etc"), jarvisbot.ENOTFOUND, "does not exist"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := skills.Load(tt.dir)
			if err == nil {
				t.Fatalf("loaded %+v", s)
			}
			if c := jarvisbot.ErrorCode(err); c != tt.code || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v (%s), want %s containing %q", err, c, tt.code, tt.want)
			}
		})
	}
}

// TestRenderRoundTrip: Parse(Render(s)) gives s back, apart from Dropped.
func TestRenderRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		name, path, src string
		imported        bool
	}{
		{"own manual", "skills/github/SKILL.md", ownManual, false},
		{"plain", "s/plain/SKILL.md", "---\nname: plain\ndescription: \"true\"\nlicense: \"0123\"\nmetadata:\n  \"~\": \"null\"\n  multi: \"a\\nb \\n\"\n---\nno newline", false},
		{"restricting", "s/r/SKILL.md", "---\nname: r\ndescription: |\n  two\n  lines\nwhen_to_use: Always.\nargument-hint: [x]\ndisable-model-invocation: true\n---\n", false},
		{"imported", "s/claude-review/SKILL.md", claudeSkill, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			read := skills.Parse
			if tt.imported {
				read = skills.Import
			}
			s, err := read(tt.path, []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			out := s.Render()
			again, err := skills.Parse(tt.path, out)
			if err != nil {
				t.Fatalf("re-parse: %v\n%s", err, out)
			}
			if len(again.Dropped) != 0 {
				t.Errorf("rendered file has dropped fields %+v", again.Dropped)
			}
			s.Dropped, s.Origin, again.Origin = nil, 0, 0
			if !reflect.DeepEqual(s, again) {
				t.Errorf("round trip changed the skill:\n%s\nbefore %+v\nafter  %+v", out, s, again)
			}
		})
	}
}

func TestErrorsAreTyped(t *testing.T) {
	_, err := skills.Parse("s/x/SKILL.md", []byte("---\nname: x\ndescription: d\nmetadata:\n  jarvisbot.tier: nope\n---\n"))
	var e *jarvisbot.Error
	if !errors.As(err, &e) || e.Code != jarvisbot.EINVALID {
		t.Fatalf("error %v is not an EINVALID *jarvisbot.Error", err)
	}
}
