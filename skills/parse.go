package skills

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/namedir"
	"github.com/jarvisbot/jarvisbot/internal/sizelimit"
)

// Limits of the Agent Skills format.
const (
	maxName          = 64
	maxDescription   = 1024
	maxCompatibility = 500
)

// Parse reads one of our own SKILL.md files (every field honoured). path
// names the file in errors, and its parent folder must be the skill's name.
// Every error is EINVALID and reads "PATH:LINE: FIELD: what is wrong".
func Parse(path string, data []byte) (*Skill, error) {
	return parse(path, data, Own)
}

// Load reads DIR/SKILL.md as one of our own skills. It refuses a SKILL.md
// that is a symbolic link, or that is reached through one leading out of
// dir, so that a skill folder cannot make jarvisbot read another file.
func Load(dir string) (*Skill, error) {
	path, data, err := readSkillFile(dir)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// readSkillFile reads DIR/SKILL.md through an os.Root, which refuses any
// path that resolves outside dir.
func readSkillFile(dir string) (string, []byte, error) {
	path := filepath.Join(dir, FileName)
	root, err := os.OpenRoot(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "skill folder %s does not exist", dir)
		}
		return "", nil, jarvisbot.Errorf(jarvisbot.EINVALID, "skill folder %s cannot be opened: %w", dir, err)
	}
	defer root.Close()

	info, err := root.Lstat(FileName)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "%s: not found; a skill is a folder with a %s file in it", path, FileName)
	case err != nil:
		return "", nil, jarvisbot.Errorf(jarvisbot.EINVALID, "%s: %w", path, err)
	case info.Mode()&fs.ModeSymlink != 0:
		return "", nil, jarvisbot.Errorf(jarvisbot.EINVALID, "%s: is a symbolic link; copy the file into the skill folder instead", path)
	case !info.Mode().IsRegular():
		return "", nil, jarvisbot.Errorf(jarvisbot.EINVALID, "%s: is not a regular file", path)
	}
	if err := FileLimit().Check(path, info.Size()); err != nil {
		return "", nil, err
	}

	f, err := root.Open(FileName)
	if err != nil {
		return "", nil, jarvisbot.Errorf(jarvisbot.EINVALID, "%s: %w", path, err)
	}
	defer f.Close()
	// The file may have been swapped between Lstat and Open.
	if opened, err := f.Stat(); err != nil || !os.SameFile(info, opened) {
		return "", nil, jarvisbot.Errorf(jarvisbot.EINVALID, "%s: changed while it was read; try again", path)
	}
	data, err := FileLimit().ReadOpened(f, path)
	if err != nil {
		return "", nil, err
	}
	return path, data, nil
}

// FileLimit is the size limit of a SKILL.md, wherever it comes from (a
// folder, a URL, a plugin).
func FileLimit() sizelimit.Limit {
	return sizelimit.Limit{What: "a " + FileName, Max: MaxFileSize, Hint: "a skill is a short manual; move reference material into separate files"}
}

// checkText rejects what cannot be a SKILL.md before any parsing.
func checkText(path string, data []byte) error {
	if err := FileLimit().Check(path, int64(len(data))); err != nil {
		return err
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: is a binary file, not UTF-8 text; a SKILL.md is Markdown", path)
	}
	return nil
}

// parser holds the state of one parse; it exists so that every error can
// name the file and line without threading them through each call.
type parser struct {
	path   string
	origin Origin
	s      *Skill
	// offset turns a line of the front matter into a line of the file.
	offset   int
	hasName  bool
	hasDesc  bool
	hasTools bool
	does     Kind
	// fieldLines maps each top-level field to its line in the file.
	fieldLines map[string]int
}

func parse(path string, data []byte, origin Origin) (*Skill, error) {
	if err := checkText(path, data); err != nil {
		return nil, err
	}
	front, body, err := split(path, data)
	if err != nil {
		return nil, err
	}
	p := &parser{path: path, origin: origin, offset: 1, s: &Skill{
		Path: path, Dir: filepath.Dir(path), Body: body, Origin: origin,
	}}
	root, err := p.decode(front)
	if err != nil {
		return nil, err
	}
	if err := p.fields(root); err != nil {
		return nil, err
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	p.s.Headings = headings(body)
	return p.s, nil
}

// split cuts the file into front matter and body. The front matter is
// between a first line "---" and the next line "---".
func split(path string, data []byte) (front []byte, body string, err error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	line, rest, _ := bytes.Cut(data, []byte("\n"))
	if !isDelimiter(line) {
		return nil, "", jarvisbot.Errorf(jarvisbot.EINVALID, "%s:1: front matter: missing; a SKILL.md starts with a line \"---\", then name: and description:, then \"---\"", path)
	}
	start := rest
	for len(rest) > 0 {
		line, next, found := bytes.Cut(rest, []byte("\n"))
		if isDelimiter(line) {
			front = start[:len(start)-len(rest)]
			if !found {
				next = nil
			}
			return front, string(next), nil
		}
		rest = next
	}
	return nil, "", jarvisbot.Errorf(jarvisbot.EINVALID, "%s:1: front matter: opened but never closed; end it with a line \"---\" before the body", path)
}

func isDelimiter(line []byte) bool {
	return string(bytes.TrimRight(line, " \t\r")) == "---"
}

var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// decode parses the front matter into its top-level mapping, or nil when
// it is empty.
func (p *parser) decode(front []byte) (root *yaml.Node, err error) {
	// The YAML library is third-party code fed untrusted input; a panic in
	// it must become a refusal, not a crash.
	defer func() {
		if r := recover(); r != nil {
			root, err = nil, p.fail(1, "front matter", "cannot be read as YAML (%v)", r)
		}
	}()
	var doc yaml.Node
	if err := yaml.Unmarshal(front, &doc); err != nil {
		msg, line := strings.TrimPrefix(err.Error(), "yaml: "), 1
		if m := yamlLine().FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = m[2]
			if isParserProblem(msg) {
				// The library counts lines from 0 for its parser's errors,
				// from 1 for its scanner's.
				line++
			}
		}
		return nil, p.fail(line+p.offset, "front matter", "malformed YAML: %s", msg)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	n := deref(doc.Content[0])
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, p.fail(p.line(n), "front matter", "is not a mapping of fields; write one \"field: value\" per line")
	}
	return n, nil
}

// isParserProblem reports whether a YAML error message comes from the
// library's parser rather than its scanner.
func isParserProblem(msg string) bool {
	switch msg {
	case "did not find expected ',' or ']'", "did not find expected ',' or '}'",
		"did not find expected '-' indicator", "did not find expected <document start>",
		"did not find expected <stream-start>", "did not find expected key",
		"did not find expected node content", "found duplicate %TAG directive",
		"found duplicate %YAML directive", "found incompatible YAML document",
		"found undefined tag handle":
		return true
	}
	return false
}

func (p *parser) line(n *yaml.Node) int {
	if n == nil || n.Line == 0 {
		return 1
	}
	return n.Line + p.offset
}

func (p *parser) fail(line int, field, format string, args ...any) error {
	return jarvisbot.Errorf(jarvisbot.EINVALID, "%s:%d: %s: %s", p.path, line, field, fmt.Sprintf(format, args...))
}

func (p *parser) drop(field, reason string) {
	p.s.Dropped = append(p.s.Dropped, Dropped{Field: field, Reason: reason})
}

// deref follows YAML aliases, a bounded number of times.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; i < 8 && n != nil && n.Kind == yaml.AliasNode && n.Alias != nil; i++ {
		n = n.Alias
	}
	return n
}

// pairs walks a mapping's key/value pairs, rejecting keys that are not text
// and keys that appear twice (fold lowercases keys before comparing).
func (p *parser) pairs(m *yaml.Node, where string, fold bool, each func(key string, k, v *yaml.Node) error) error {
	seen := make(map[string]int, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := deref(m.Content[i]), deref(m.Content[i+1])
		if k == nil || k.Kind != yaml.ScalarNode {
			return p.fail(p.line(m.Content[i]), where, "field names must be plain text")
		}
		id := k.Value
		if fold {
			id = strings.ToLower(strings.TrimSpace(id))
		}
		if first, dup := seen[id]; dup {
			return p.fail(p.line(m.Content[i]), qualify(where, k.Value), "appears twice (first on line %d); keep one", first)
		}
		seen[id] = p.line(m.Content[i])
		if err := each(k.Value, m.Content[i], v); err != nil {
			return err
		}
	}
	return nil
}

func qualify(where, key string) string {
	if where == "front matter" {
		return key
	}
	return where + "." + key
}

// fields reads the top-level fields.
func (p *parser) fields(root *yaml.Node) error {
	if root == nil {
		return nil
	}
	s := p.s
	p.fieldLines = make(map[string]int, len(root.Content)/2)
	return p.pairs(root, "front matter", false, func(key string, k, v *yaml.Node) error {
		p.fieldLines[key] = p.line(k)
		var err error
		switch key {
		case "name":
			s.Name, err = p.scalar(key, v)
			p.hasName = true
		case "description":
			s.Description, err = p.scalar(key, v)
			p.hasDesc = true
		case "when_to_use":
			s.WhenToUse, err = p.scalar(key, v)
		case "license":
			s.License, err = p.scalar(key, v)
		case "compatibility":
			s.Compatibility, err = p.scalar(key, v)
		case "argument-hint":
			s.ArgumentHint, err = p.argumentHint(v)
		case "disable-model-invocation":
			s.DisableModelInvocation, err = p.boolean(key, v)
		case "metadata":
			err = p.metadata(v)
		case "allowed-tools":
			if p.origin != Own {
				p.drop(key, dropReason(key))
				return nil
			}
			s.AllowedTools, err = p.tools(v)
			p.hasTools = len(s.AllowedTools) > 0
		default:
			p.drop(key, dropReason(key))
		}
		return err
	})
}

// scalar reads a text field. Numbers and booleans are taken as written
// ("version: 1.0" means the text "1.0"); lists and mappings are refused.
func (p *parser) scalar(field string, v *yaml.Node) (string, error) {
	if v.Kind != yaml.ScalarNode {
		return "", p.fail(p.line(v), field, "want text, got a %s; quote the value", kindName(v))
	}
	if v.Tag == "!!null" {
		return "", nil
	}
	return v.Value, nil
}

func (p *parser) boolean(field string, v *yaml.Node) (bool, error) {
	if v.Kind == yaml.ScalarNode {
		if b, err := strconv.ParseBool(strings.TrimSpace(v.Value)); err == nil {
			return b, nil
		}
	}
	return false, p.fail(p.line(v), field, "want true or false")
}

// argumentHint accepts Claude Code's unquoted "argument-hint: [file]",
// which YAML reads as a list, and turns it back into the text meant.
func (p *parser) argumentHint(v *yaml.Node) (string, error) {
	if v.Kind != yaml.SequenceNode {
		return p.scalar("argument-hint", v)
	}
	parts := make([]string, 0, len(v.Content))
	for _, item := range v.Content {
		item = deref(item)
		if item == nil || item.Kind != yaml.ScalarNode {
			return "", p.fail(p.line(v), "argument-hint", "want text such as \"[file]\"; quote the value")
		}
		parts = append(parts, item.Value)
	}
	return "[" + strings.Join(parts, ", ") + "]", nil
}

// tools reads allowed-tools: a YAML list, or a string of names separated by
// spaces or commas. Parentheses group, so "Bash(git diff *)" is one tool.
func (p *parser) tools(v *yaml.Node) ([]string, error) {
	switch v.Kind {
	case yaml.ScalarNode:
		return splitTools(v.Value), nil
	case yaml.SequenceNode:
		var out []string
		for _, item := range v.Content {
			item = deref(item)
			if item == nil || item.Kind != yaml.ScalarNode {
				return nil, p.fail(p.line(v), "allowed-tools", "want a list of tool names")
			}
			if t := strings.TrimSpace(item.Value); t != "" {
				out = append(out, t)
			}
		}
		return out, nil
	}
	return nil, p.fail(p.line(v), "allowed-tools", "want tool names separated by spaces, or a list")
}

func splitTools(s string) []string {
	var out []string
	depth, start := 0, 0
	flush := func(end int) {
		if t := strings.TrimSpace(s[start:end]); t != "" {
			out = append(out, t)
		}
	}
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && (r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'):
			flush(i)
			start = i + 1
		}
	}
	flush(len(s))
	return out
}

// metadata reads the metadata mapping: other apps' keys into
// Skill.Metadata, ours into the Skill's fields (or Dropped, on import).
func (p *parser) metadata(v *yaml.Node) error {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		return p.fail(p.line(v), "metadata", "want a mapping of names to text, one \"name: value\" per line")
	}
	return p.pairs(v, "metadata", true, func(key string, k, val *yaml.Node) error {
		field := "metadata." + key
		if isOurs(key) {
			if p.origin != Own {
				p.drop(field, dropReason(strings.ToLower(strings.TrimSpace(key))))
				return nil
			}
			return p.ours(strings.ToLower(strings.TrimSpace(key)), field, val)
		}
		if val.Kind != yaml.ScalarNode {
			p.drop(field, "not text: the Agent Skills format wants metadata values to be strings")
			return nil
		}
		if p.s.Metadata == nil {
			p.s.Metadata = make(map[string]string)
		}
		if val.Tag == "!!null" {
			p.s.Metadata[key] = ""
		} else {
			p.s.Metadata[key] = val.Value
		}
		return nil
	})
}

// ours reads one of jarvisbot's own fields of an own skill.
func (p *parser) ours(key, field string, v *yaml.Node) error {
	s := p.s
	var err error
	switch key {
	case Namespace + "plugin":
		s.Plugin, err = p.scalar(field, v)
		s.Plugin = strings.TrimSpace(s.Plugin)
	case Namespace + "words":
		s.Words, err = p.list(field, v)
	case Namespace + "words-de":
		s.WordsDE, err = p.list(field, v)
	case Namespace + "related":
		s.Related, err = p.list(field, v)
	case Namespace + "tier":
		var t string
		if t, err = p.scalar(field, v); err == nil {
			if s.Tier, err = catalog.ParseTier(t); err != nil {
				err = jarvisbot.Errorf(jarvisbot.EINVALID, "%s:%d: %s: %w", p.path, p.line(v), field, err)
			}
		}
	case Namespace + "schedule":
		if s.Schedule, err = p.scalar(field, v); err == nil {
			if s.Schedule = strings.TrimSpace(s.Schedule); s.Schedule == "" {
				err = p.fail(p.line(v), field, "is empty; write a schedule such as \"0 7 * * *\", or leave the field out")
			}
		}
	case Namespace + "timezone":
		if s.TimeZone, err = p.scalar(field, v); err == nil {
			if s.TimeZone = strings.TrimSpace(s.TimeZone); s.TimeZone == "" {
				err = p.fail(p.line(v), field, "is empty; write a zone such as Europe/Berlin, or leave the field out")
			}
		}
	case Namespace + "chat":
		if s.Chat, err = p.scalar(field, v); err == nil {
			if s.Chat = strings.TrimSpace(s.Chat); !strings.Contains(s.Chat, ":") && s.Chat != "console" {
				err = p.fail(p.line(v), field, "%q is not a chat: write PLATFORM:ID such as telegram:123456 or discord:987654321", s.Chat)
			}
		}
	case Namespace + "agent":
		if s.Agent, err = p.scalar(field, v); err == nil {
			if s.Agent = strings.TrimSpace(s.Agent); s.Agent == "" || strings.ContainsAny(s.Agent, " \t/:") {
				err = p.fail(p.line(v), field, "%q is not an agent's name: write the name jarvisbot agents list shows, or leave the field out for the default agent", s.Agent)
			}
		}
	case Namespace + "voice":
		s.Voice, err = p.boolean(field, v)
	case Namespace + "does":
		var d string
		if d, err = p.scalar(field, v); err == nil {
			switch k := Kind(strings.ToLower(strings.TrimSpace(d))); k {
			case KindInstructions, KindTools, KindBackground:
				p.does = k
			default:
				err = p.fail(p.line(v), field, "unknown kind %q: use instructions, tools or background", d)
			}
		}
	default:
		p.drop(field, "not a jarvisbot field (plugin, words, words-de, related, tier, schedule, timezone, chat, agent, voice, does); ignored")
	}
	return err
}

// list reads a comma-separated string, or a YAML list of them.
func (p *parser) list(field string, v *yaml.Node) ([]string, error) {
	var items []string
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag != "!!null" {
			items = []string{v.Value}
		}
	case yaml.SequenceNode:
		for _, item := range v.Content {
			item = deref(item)
			if item == nil || item.Kind != yaml.ScalarNode {
				return nil, p.fail(p.line(v), field, "want words separated by commas")
			}
			items = append(items, item.Value)
		}
	default:
		return nil, p.fail(p.line(v), field, "want words separated by commas, got a %s", kindName(v))
	}
	var out []string
	for _, item := range items {
		for w := range strings.SplitSeq(item, ",") {
			if w = strings.TrimSpace(w); w != "" {
				out = append(out, w)
			}
		}
	}
	return out, nil
}

// finish checks what needs the whole front matter: required fields, the
// name against the folder, lengths, and the kind.
func (p *parser) finish() error {
	s := p.s
	folder := folderName(p.path)
	if !p.hasName || s.Name == "" {
		if p.origin == Imported && validName(folder) == "" {
			// Claude Code takes a missing name from the folder.
			s.Name = folder
		} else {
			return p.fail(1, "name", "missing; add \"name: %s\" (the folder's name)", folder)
		}
	}
	if why := validName(s.Name); why != "" {
		return p.fail(p.fieldLine("name"), "name", "%q %s", s.Name, why)
	}
	if s.Name != folder {
		return p.fail(p.fieldLine("name"), "name", "%q does not match its folder %q; rename one of them", s.Name, folder)
	}
	if !p.hasDesc || strings.TrimSpace(s.Description) == "" {
		return p.fail(p.fieldLine("description"), "description", "missing; say what the skill does and when to use it")
	}
	if n := utf8.RuneCountInString(s.Description); n > maxDescription {
		return p.fail(p.fieldLine("description"), "description", "is %d characters long, at most %d are allowed; move detail into the body", n, maxDescription)
	}
	if n := utf8.RuneCountInString(s.Compatibility); n > maxCompatibility {
		return p.fail(p.fieldLine("compatibility"), "compatibility", "is %d characters long, at most %d are allowed", n, maxCompatibility)
	}
	if s.TimeZone != "" && s.Schedule == "" {
		return p.fail(p.fieldLine("metadata"), "metadata."+Namespace+"timezone", "set without %sschedule; add the schedule or remove the zone", Namespace)
	}
	s.Does = defaultKind(p.hasTools)
	if p.origin == Own && p.does != "" {
		s.Does = p.does
	}
	return nil
}

// fieldLine is the line of a top-level field, for errors found after the
// walk; 1 (the opening "---") when the field is absent.
func (p *parser) fieldLine(field string) int {
	if n, ok := p.fieldLines[field]; ok {
		return n
	}
	return 1
}

// ValidName reports, as EINVALID, why name cannot name a skill: the Agent
// Skills rule of 1–64 lowercase letters a-z, digits and hyphens, no hyphen
// at either end and no two in a row. A skill's name is its folder's, so it
// is checked before it becomes a path.
func ValidName(name string) error {
	if why := validName(name); why != "" {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "skill name %.80q %s", name, why)
	}
	return nil
}

// Folder is a folder of skills, one per name (<data dir>/skills, an
// agent's own): every skill name reaches a path in it only through the
// returned Dir, which checks it with ValidName and follows no link out.
func Folder(path string) namedir.Dir { return namedir.New(path, "skill", ValidName) }

// validName returns why name breaks the format's rules, or "".
func validName(name string) string {
	switch {
	case name == "":
		return "is empty"
	case len(name) > maxName:
		return fmt.Sprintf("is %d characters long, at most %d are allowed", len(name), maxName)
	case name[0] == '-' || name[len(name)-1] == '-':
		return "must not start or end with a hyphen"
	case strings.Contains(name, "--"):
		return "must not contain two hyphens in a row"
	}
	for _, r := range name {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			return "may hold only lowercase letters a-z, digits and hyphens"
		}
	}
	return ""
}

// folderName is the name of the folder holding the SKILL.md at path.
func folderName(path string) string {
	dir := filepath.Dir(filepath.Clean(path))
	if base := filepath.Base(dir); base != "." && base != string(filepath.Separator) {
		return base
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return filepath.Base(abs)
	}
	return ""
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.MappingNode:
		return "mapping"
	}
	return "value"
}

// headings returns the ATX headings of a Markdown body, outside fenced
// code blocks.
func headings(body string) []string {
	var out []string
	var fence string
	for line := range strings.SplitSeq(body, "\n") {
		line = strings.TrimRight(line, " \t\r")
		trimmed := strings.TrimLeft(line, " ")
		if len(line)-len(trimmed) > 3 {
			continue
		}
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if f := fenceOf(trimmed); f != "" {
			fence = f
			continue
		}
		level := len(trimmed) - len(strings.TrimLeft(trimmed, "#"))
		if level < 1 || level > 6 {
			continue
		}
		text := trimmed[level:]
		if text != "" && text[0] != ' ' && text[0] != '\t' {
			continue
		}
		text = strings.TrimSpace(text)
		if t := strings.TrimRight(text, "#"); t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t") {
			text = strings.TrimSpace(t)
		}
		if text != "" {
			out = append(out, text)
		}
	}
	return out
}

// fenceOf returns the fence a line opens (``` or ~~~, at least three), or "".
func fenceOf(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}
