package plugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/sizelimit"
)

// MaxEntries is the most files and folders a plugin folder may hold. A
// plugin is a manifest, a configuration and a few manuals; a folder with
// more is not one, and walking it should not cost minutes.
const MaxEntries = 10000

// Problem is one thing wrong with a plugin folder. Warnings do not reject
// the plugin; every other problem does.
type Problem struct {
	File    string // "github/plugin.json"
	Field   string // "name", "mcpServers.github.url", "" for the file itself
	Message string
	Warning bool
}

// String returns "file: field: message", or "file: message" for a problem
// with the file itself.
func (p Problem) String() string {
	if p.Field == "" {
		return p.File + ": " + p.Message
	}
	return p.File + ": " + p.Field + ": " + p.Message
}

// Plugin is a plugin folder that passed validation.
type Plugin struct {
	Dir      string
	Manifest Manifest
	Ext      Extension
	MCP      *MCPConfig // nil when the plugin has no mcp.json
	// Skills are the names of the skills/<name>/SKILL.md folders found; the
	// skills package parses them.
	Skills   []string
	Warnings []string
}

// DisplayName is the name to show the owner.
func (p *Plugin) DisplayName() string {
	if p.Ext.DisplayName != "" {
		return p.Ext.DisplayName
	}
	return p.Manifest.Name
}

// Load reads and validates the plugin folder dir. It fails with EINVALID,
// naming the first problem and how many more there are, or ENOTFOUND when
// dir or its plugin.json does not exist. The folder is read through an
// os.Root, so no symlink inside it can lead jarvisbot outside it.
func Load(dir string) (*Plugin, error) {
	root, err := openRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return load(root.FS(), ".", label(dir), newSchemas())
}

// LoadFS is Load for the folder dir of fsys, such as the store embedded in
// the binary. It sees symlinks, and refuses those that lead out, only when
// fsys implements fs.ReadLinkFS (an os.Root's FS does; embed.FS has none).
func LoadFS(fsys fs.FS, dir string) (*Plugin, error) {
	return loadFS(fsys, dir, newSchemas())
}

// loadFS is LoadFS with the schemas of a load of several folders.
func loadFS(fsys fs.FS, dir string, sch *schemas) (*Plugin, error) {
	if err := checkFSDir(fsys, dir); err != nil {
		return nil, err
	}
	return load(fsys, dir, dir, sch)
}

// Validate checks the plugin folder dir and returns every problem it finds,
// warnings included, in the order of the files; nil means none.
func Validate(dir string) []Problem {
	root, err := openRoot(dir)
	if err != nil {
		return []Problem{{File: label(dir), Message: err.Error()}}
	}
	defer root.Close()
	l := &loader{fsys: root.FS(), dir: ".", label: label(dir), schemas: newSchemas()}
	l.load()
	return l.problems
}

func label(dir string) string { return path.Clean(filepath.ToSlash(dir)) }

func openRoot(dir string) (*os.Root, error) {
	root, err := os.OpenRoot(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "plugin folder %s does not exist", dir)
	case err != nil:
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "plugin folder %s cannot be opened: %w", dir, err)
	}
	return root, nil
}

func checkFSDir(fsys fs.FS, dir string) error {
	if !fs.ValidPath(dir) {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "plugin folder %q is not a path inside the store: no \"..\", no leading or trailing \"/\"", dir)
	}
	info, err := fs.Stat(fsys, dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "plugin folder %s does not exist", dir)
	case err != nil:
		return jarvisbot.Errorf(jarvisbot.EINVALID, "plugin folder %s cannot be read: %w", dir, err)
	case !info.IsDir():
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s is not a folder: a plugin is a folder with a %s in it", dir, ManifestFile)
	}
	return nil
}

func load(fsys fs.FS, dir, name string, sch *schemas) (*Plugin, error) {
	l := &loader{fsys: fsys, dir: dir, label: name, schemas: sch}
	p := l.load()
	var errs []Problem
	for _, pr := range l.problems {
		if pr.Warning {
			p.Warnings = append(p.Warnings, pr.String())
		} else {
			errs = append(errs, pr)
		}
	}
	if len(errs) == 0 {
		return p, nil
	}
	code := jarvisbot.EINVALID
	if l.noManifest {
		code = jarvisbot.ENOTFOUND
	}
	if len(errs) == 1 {
		return nil, jarvisbot.Errorf(code, "%s", errs[0])
	}
	return nil, jarvisbot.Errorf(code, "%s (and %d more problems: `jarvisbot plugins validate %s` lists them all)", errs[0], len(errs)-1, name)
}

// loader reads one plugin folder and collects its problems.
type loader struct {
	fsys       fs.FS
	dir        string // the folder in fsys
	label      string // the folder as problems name it
	problems   []Problem
	seen       map[Problem]bool
	noManifest bool
	schemas    *schemas
}

func (l *loader) rel(name string) string  { return path.Join(l.dir, name) }
func (l *loader) file(name string) string { return path.Join(l.label, name) }

// inside turns a path of fsys into a path inside the plugin folder.
func (l *loader) inside(p string) string {
	if l.dir == "." {
		return p
	}
	if rest, ok := strings.CutPrefix(p, l.dir+"/"); ok {
		return rest
	}
	return "."
}

func (l *loader) add(ps ...Problem) {
	if l.seen == nil {
		l.seen = map[Problem]bool{}
	}
	for _, p := range ps {
		if !l.seen[p] {
			l.seen[p] = true
			l.problems = append(l.problems, p)
		}
	}
}

func (l *loader) fail(name, field, format string, args ...any) {
	l.add(Problem{File: l.file(name), Field: field, Message: fmt.Sprintf(format, args...)})
}

func (l *loader) warn(name, field, format string, args ...any) {
	l.add(Problem{File: l.file(name), Field: field, Message: fmt.Sprintf(format, args...), Warning: true})
}

func (l *loader) load() *Plugin {
	p := &Plugin{Dir: l.label}

	data, missing, ok := l.readText(ManifestFile)
	switch {
	case missing:
		l.noManifest = true
		l.fail(ManifestFile, "", "not found: a plugin folder needs a %s with at least $schema and name", ManifestFile)
	case ok:
		c := &checker{file: l.file(ManifestFile)}
		p.Manifest, p.Ext = c.manifest(data, l.schemas)
		l.add(c.problems...)
		if strings.HasPrefix(p.Ext.Logo, "./") && insideRoot(p.Ext.Logo) {
			l.logo(p.Ext.Logo)
		}
	}

	data, missing, ok = l.readText(MCPFile)
	if ok {
		c := &checker{file: l.file(MCPFile)}
		cfg := c.mcpConfig(data, l.schemas)
		l.add(c.problems...)
		if cfg != nil {
			p.MCP = cfg
			l.serverFiles(cfg)
		}
	}
	if p.Ext.Channel && !missing {
		l.fail(MCPFile, "", "a channel plugin (extensions[%q].channel) brings no MCP server: remove %s or channel", ExtensionID, MCPFile)
	}
	if p.Ext.Builtin && !missing {
		l.fail(MCPFile, "", "a builtin plugin (extensions[%q].builtin) brings no MCP server: remove %s or builtin", ExtensionID, MCPFile)
	}

	p.Skills = l.skills()
	l.walk()
	return p
}

// entry returns name's file info after following a symlink that stays in
// the plugin. missing is true when name does not exist; ok is false when it
// is missing or a problem was recorded.
func (l *loader) entry(name string) (info fs.FileInfo, missing, ok bool) {
	info, err := fs.Lstat(l.fsys, l.rel(name))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, true, false
	case err != nil:
		l.fail(name, "", "cannot be read: %v", cause(err))
		return nil, false, false
	case info.Mode()&fs.ModeSymlink == 0:
		return info, false, true
	}
	if !l.link(name) {
		return nil, false, false
	}
	info, err = fs.Stat(l.fsys, l.rel(name))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		l.fail(name, "", "is a symbolic link to nothing")
		return nil, false, false
	case err != nil:
		l.fail(name, "", "is a symbolic link that cannot be followed inside the plugin folder: %v", cause(err))
		return nil, false, false
	}
	return info, false, true
}

// link checks that the symlink name points inside the plugin folder.
func (l *loader) link(name string) bool {
	target, err := fs.ReadLink(l.fsys, l.rel(name))
	if err != nil {
		l.fail(name, "", "is a symbolic link that cannot be read: %v", cause(err))
		return false
	}
	t := filepath.ToSlash(target)
	if path.IsAbs(t) || filepath.IsAbs(target) || filepath.VolumeName(target) != "" || !insideRoot(path.Join(path.Dir(name), t)) {
		l.fail(name, "", "is a symbolic link to %.80q, outside the plugin folder: copy the file into the plugin instead", target)
		return false
	}
	return true
}

// readText reads a text file of the plugin: regular, at most MaxFileSize,
// UTF-8 without NUL bytes.
func (l *loader) readText(name string) (data []byte, missing, ok bool) {
	info, missing, ok := l.entry(name)
	if !ok {
		return nil, missing, false
	}
	if !info.Mode().IsRegular() {
		l.fail(name, "", "is not a regular file")
		return nil, false, false
	}
	if err := FileLimit().Check(name, info.Size()); err != nil {
		l.tooLarge(name, err)
		return nil, false, false
	}
	f, err := l.fsys.Open(l.rel(name))
	if err != nil {
		l.fail(name, "", "cannot be read: %v", cause(err))
		return nil, false, false
	}
	defer f.Close()
	data, err = FileLimit().ReadAll(f, name)
	switch {
	case jarvisbot.ErrorCode(err) == jarvisbot.EINVALID:
		l.tooLarge(name, err)
		return nil, false, false
	case err != nil:
		l.fail(name, "", "cannot be read: %v", cause(err))
		return nil, false, false
	case binary(data):
		l.fail(name, "", "is a binary file, not UTF-8 text")
		return nil, false, false
	}
	return data, false, true
}

// FileLimit is the size limit of every file the package reads.
func FileLimit() sizelimit.Limit {
	return sizelimit.Limit{What: "a plugin file", Max: MaxFileSize, Hint: "a manifest, an MCP configuration or a manual is a few KiB"}
}

// tooLarge records a file over the limit, named once by the problem.
func (l *loader) tooLarge(name string, err error) {
	var tl *sizelimit.TooLarge
	if errors.As(err, &tl) {
		l.fail(name, "", "%s", tl.Error())
		return
	}
	l.fail(name, "", "%v", err)
}

func binary(data []byte) bool { return bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) }

// cause drops the path from a *fs.PathError: problems name the file already.
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (l *loader) logo(logo string) {
	name := path.Clean(logo)
	f := field(field("extensions", ExtensionID), "logo")
	info, missing, ok := l.entry(name)
	switch {
	case missing:
		l.add(Problem{File: l.file(ManifestFile), Field: f, Message: fmt.Sprintf("%.80q is not in the plugin folder", logo)})
	case !ok:
	case !info.Mode().IsRegular():
		l.add(Problem{File: l.file(ManifestFile), Field: f, Message: fmt.Sprintf("%.80q is not a regular file", logo)})
	default:
		var tl *sizelimit.TooLarge
		if err := FileLimit().Check(logo, info.Size()); errors.As(err, &tl) {
			l.add(Problem{File: l.file(ManifestFile), Field: f, Message: fmt.Sprintf("%.80q %s", logo, tl.Error())})
		}
	}
}

// serverFiles checks the package paths a stdio server names: a bundled
// command must exist inside the plugin, a working directory must not lead
// out of it through a symlink.
func (l *loader) serverFiles(cfg *MCPConfig) {
	for _, name := range sortedKeys(cfg.Servers) {
		srv := cfg.Servers[name]
		f := field("mcpServers", name)
		if strings.HasPrefix(srv.Command, "./") {
			info, missing, ok := l.entry(path.Clean(srv.Command))
			switch {
			case missing:
				l.add(Problem{File: l.file(MCPFile), Field: field(f, "command"), Message: fmt.Sprintf("%.80q is not in the plugin folder", srv.Command)})
			case ok && !info.Mode().IsRegular():
				l.add(Problem{File: l.file(MCPFile), Field: field(f, "command"), Message: fmt.Sprintf("%.80q is not a regular file", srv.Command)})
			}
		}
		if rel, ok := packagePath(srv.Cwd); ok {
			if info, _, ok := l.entry(rel); ok && !info.IsDir() {
				l.add(Problem{File: l.file(MCPFile), Field: field(f, "cwd"), Message: fmt.Sprintf("%.80q is not a folder", srv.Cwd)})
			}
		}
	}
}

// packagePath turns a working directory inside the package ("./data",
// "${PLUGIN_ROOT}/data") into a path relative to the plugin folder.
func packagePath(dir string) (string, bool) {
	rest, ok := strings.CutPrefix(dir, "${PLUGIN_ROOT}")
	switch {
	case ok && (rest == "" || strings.HasPrefix(rest, "/")):
		rest = "." + rest
	case strings.HasPrefix(dir, "./"):
		rest = dir
	default:
		return "", false
	}
	if !insideRoot(rest) {
		return "", false
	}
	return path.Clean(rest), true
}

// skills lists the skills/<name>/SKILL.md folders.
func (l *loader) skills() []string {
	info, _, ok := l.entry(SkillsDir)
	if !ok {
		return nil
	}
	if !info.IsDir() {
		l.fail(SkillsDir, "", "is not a folder: skills live in %s/<name>/%s", SkillsDir, SkillFile)
		return nil
	}
	entries, err := fs.ReadDir(l.fsys, l.rel(SkillsDir))
	if err != nil {
		l.fail(SkillsDir, "", "cannot be read: %v", cause(err))
		return nil
	}
	var names []string
	for _, e := range entries {
		dir := path.Join(SkillsDir, e.Name())
		info, _, ok := l.entry(dir)
		if !ok {
			continue
		}
		if !info.IsDir() {
			l.warn(dir, "", "is not a skill folder; ignored")
			continue
		}
		if err := validSkillName(e.Name()); err != nil {
			l.fail(dir, "", "%v", err)
			continue
		}
		skill := path.Join(dir, SkillFile)
		if _, missing, ok := l.readText(skill); missing {
			l.warn(dir, "", "has no %s; ignored", SkillFile)
		} else if ok {
			names = append(names, e.Name())
		}
	}
	return names
}

// validSkillName is the Agent Skills folder name rule: 1–64 of a-z, 0-9 and
// '-', no hyphen at either end, no "--".
func validSkillName(name string) error {
	ok := name != "" && len(name) <= 64 && name[0] != '-' && name[len(name)-1] != '-' && !strings.Contains(name, "--")
	for i := 0; ok && i < len(name); i++ {
		ok = name[i] >= 'a' && name[i] <= 'z' || name[i] >= '0' && name[i] <= '9' || name[i] == '-'
	}
	if !ok {
		return fmt.Errorf("%.80q is not a skill name: use 1–64 of a-z, 0-9 and '-', no hyphen at either end, no \"--\"", name)
	}
	return nil
}

// walk checks every symlink of the folder, also those no file names, so
// that installing or copying the plugin never follows one out of it.
func (l *loader) walk() {
	n := 0
	err := fs.WalkDir(l.fsys, l.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			l.fail(l.inside(p), "", "cannot be read: %v", cause(err))
			return nil
		}
		if n++; n > MaxEntries {
			l.fail("", "", "holds more than %d files and folders: a plugin is a manifest, a configuration and a few skills", MaxEntries)
			return fs.SkipAll
		}
		if d.Type()&fs.ModeSymlink != 0 {
			l.link(l.inside(p))
		}
		return nil
	})
	if err != nil {
		l.fail("", "", "cannot be read: %v", cause(err))
	}
}

// checker collects the problems of one JSON file.
type checker struct {
	file     string
	problems []Problem
}

func (c *checker) fail(field, format string, args ...any) {
	c.problems = append(c.problems, Problem{File: c.file, Field: field, Message: fmt.Sprintf(format, args...)})
}

func (c *checker) warn(field, format string, args ...any) {
	c.problems = append(c.problems, Problem{File: c.file, Field: field, Message: fmt.Sprintf(format, args...), Warning: true})
}

// ok reports whether no error was recorded for field yet, so that one
// mistake is not reported twice.
func (c *checker) ok(field string) bool {
	return !slices.ContainsFunc(c.problems, func(p Problem) bool { return !p.Warning && p.Field == field })
}

// failedUnder reports whether an error was recorded for field f or
// anything inside it.
func (c *checker) failedUnder(f string) bool {
	return slices.ContainsFunc(c.problems, func(p Problem) bool {
		return !p.Warning && (p.Field == f || strings.HasPrefix(p.Field, f+".") || strings.HasPrefix(p.Field, f+"["))
	})
}

// document checks that data is one strict JSON value: at most MaxFileSize,
// UTF-8, nothing after it.
func (c *checker) document(data []byte) (json.RawMessage, bool) {
	switch {
	case int64(len(data)) > MaxFileSize:
		var tl *sizelimit.TooLarge
		if err := FileLimit().Check(c.file, int64(len(data))); errors.As(err, &tl) {
			c.fail("", "%s", tl.Error())
		}
		return nil, false
	case binary(data):
		c.fail("", "is a binary file, not UTF-8 JSON")
		return nil, false
	case bytes.HasPrefix(data, []byte("\xef\xbb\xbf")):
		c.fail("", "starts with a byte-order mark: save it as UTF-8 without BOM")
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		if err == io.EOF {
			c.fail("", "is empty: want a JSON object")
		} else {
			c.fail("", "is not valid JSON: %s", jsonError(data, err))
		}
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		c.fail("", "has data after its JSON object (line %d)", lineOf(data, dec.InputOffset()))
		return nil, false
	}
	return raw, true
}

func jsonError(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v (line %d)", se, lineOf(data, se.Offset))
	}
	return err.Error()
}

func lineOf(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// kindOf names the JSON type of raw for messages.
func kindOf(raw json.RawMessage) string {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// field names key inside parent: parent.key, or parent["key"] when key is
// not a plain word, so that every field name in a message is unambiguous.
func field(parent, key string) string {
	plain := key != ""
	for i := 0; plain && i < len(key); i++ {
		b := key[i]
		plain = b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-' || b == '$'
	}
	switch {
	case !plain:
		return parent + "[" + strconv.Quote(key) + "]"
	case parent == "":
		return key
	}
	return parent + "." + key
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
