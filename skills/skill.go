// Package skills reads and writes SKILL.md files (S1, S6): a folder whose
// SKILL.md holds YAML front matter and a Markdown body, in the open Agent
// Skills format (agentskills.io).
//
// Data flows one way: bytes → Parse (our own and shipped skills) or Import
// (a SKILL.md written for Claude Code, Codex or Cursor) → *Skill, which the
// scorer, the take-over policy and the store consume. Render writes a Skill
// back; Parse(Render(s)) gives s again, apart from Dropped, which Render
// does not write (the store keeps that list beside the skill).
//
// # Where jarvisbot's own fields live
//
// Other apps' parsers accept `metadata`, a map from string keys to string
// values, so jarvisbot's fields live there, under keys with the prefix
// "jarvisbot." (matched without regard to case, so that "JarvisBot.tier" in
// an imported file is recognised as ours, and dropped):
//
//	metadata:
//	  jarvisbot.plugin: github              # the plugin whose manual this is
//	  jarvisbot.words: github, repo, pull request
//	  jarvisbot.words-de: Repository, Pull-Request
//	  jarvisbot.related: code review, merge, branch   # paraphrase words
//	  jarvisbot.tier: monitor               # safe, monitor or ask
//	  jarvisbot.schedule: "0 7 * * *"       # the scheduler validates it
//	  jarvisbot.timezone: Europe/Berlin
//	  jarvisbot.chat: telegram:123456       # where the report goes
//	  jarvisbot.agent: inbox                # the agent that runs it
//	  jarvisbot.voice: "true"
//	  jarvisbot.does: tools                 # instructions, tools or background
//
// Because the format wants string values, lists are comma-separated strings;
// a YAML list is accepted too (each item is still split at commas, so a word
// cannot contain one). Render writes comma-separated strings, so a rendered
// file passes other apps' validators.
//
// # Own and imported skills
//
// Parse honours every field (Own). Import keeps only descriptive fields and
// records everything that would grant behaviour in Skill.Dropped (S6).
// Unknown top-level fields are recorded in Dropped by both, and ignored.
//
// # Which skills a turn draws on
//
// Gather lists the skills of a Scope in rising precedence (shipped, a
// plugin's manual, the owner's folder, the agent's own: S2, S7), the
// owner's switches (S5) last. ImportFrom reads a skill to install from a
// folder, a file or a URL (S6); AddOwn, Promote and RemoveOwn change the
// owner's folder with its records in the store.
package skills

import (
	"sort"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/jarvisbot/jarvisbot/catalog"
)

// FileName is the name of the file that makes a folder a skill.
const FileName = "SKILL.md"

// MaxFileSize is the largest SKILL.md accepted. A skill is a short manual;
// anything larger is a mistake or an attack on the parser.
const MaxFileSize = 256 << 10

// Namespace prefixes jarvisbot's own keys under metadata.
const Namespace = "jarvisbot."

// Kind is what a skill does; it decides whether a matched skill may take
// over a turn (S4).
type Kind string

// The kinds of skill.
const (
	KindInstructions Kind = "instructions" // only adds instructions: may take over a turn
	KindTools        Kind = "tools"        // uses tools: joins only while the model can decline
	KindBackground   Kind = "background"   // starts a background job: never fires by itself
)

// Origin says how much of a SKILL.md is trusted. The zero value is neither,
// so that a Skill built by hand is not mistaken for a trusted one.
type Origin int

// The origins (S6).
const (
	Own      Origin = iota + 1 // shipped or written by the owner or an agent: every field honoured
	Imported                   // written for another app: descriptive fields only
)

func (o Origin) String() string {
	switch o {
	case Own:
		return "own"
	case Imported:
		return "imported"
	}
	return "unknown"
}

// Skill is one parsed SKILL.md.
type Skill struct {
	Name          string
	Description   string
	WhenToUse     string // Claude Code's when_to_use: more about when the skill applies
	License       string
	Compatibility string
	ArgumentHint  string
	// Metadata is the other apps' metadata, without our namespace.
	Metadata map[string]string
	Body     string
	Dir      string // the skill's folder
	Path     string // the SKILL.md, as given to Parse
	// Headings are the body's Markdown headings, in order, for the scorer.
	Headings []string
	// AllowedTools are the tools an own skill says it uses (the format's
	// allowed-tools). They make it KindTools unless jarvisbot.does says
	// otherwise; they grant nothing. Always empty for an imported skill.
	AllowedTools []string

	Plugin  string   // the plugin whose manual this is, or ""
	Words   []string // trigger words, English
	WordsDE []string // trigger words, German
	Related []string // paraphrase words the author lists
	// Tier is the skill's risk tier; "" means the catalog's default (monitor).
	Tier     catalog.Tier
	Schedule string // a schedule for the scheduler, or ""
	TimeZone string // the schedule's time zone, or "" for the owner's
	Chat     string // where a scheduled run's report goes, or "" for the owner's main chat
	// Agent is the agent that runs the skill's scheduled runs, or "" for
	// the default agent. Only the owner's own skills can name one.
	Agent string
	Voice bool // may be started by voice
	Does  Kind

	// DisableModelInvocation keeps the model from picking the skill by
	// itself; the owner must name it. A restricting field: always honoured.
	DisableModelInvocation bool

	Origin Origin
	// Dropped lists the fields that were read but not honoured, in file order.
	Dropped []Dropped

	// Learned are the owner's words learned for the skill from turns in
	// which the model asked for it and used it (C9): never read from a
	// SKILL.md, set from the store when a turn's skills are read
	// (WithLearned).
	Learned []catalog.LearnedWord
}

// Dropped is one field of a SKILL.md that was ignored, and why.
type Dropped struct {
	Field  string // e.g. "allowed-tools", "metadata.jarvisbot.tier"
	Reason string
}

// Render writes the skill as a SKILL.md: front matter, then the body. Empty
// fields are left out, and jarvisbot.does only when it differs from what
// the other fields imply, so a shipped manual stays short.
func (s *Skill) Render() []byte {
	m := &yaml.Node{Kind: yaml.MappingNode}
	add := func(key string, v *yaml.Node) { m.Content = append(m.Content, text(key), v) }
	str := func(key, v string) {
		if v != "" {
			add(key, text(v))
		}
	}
	str("name", s.Name)
	str("description", s.Description)
	str("when_to_use", s.WhenToUse)
	str("argument-hint", s.ArgumentHint)
	str("license", s.License)
	str("compatibility", s.Compatibility)
	if s.DisableModelInvocation {
		add("disable-model-invocation", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
	}
	if tools := nonEmpty(s.AllowedTools); len(tools) > 0 {
		seq := &yaml.Node{Kind: yaml.SequenceNode}
		for _, t := range tools {
			seq.Content = append(seq.Content, text(t))
		}
		add("allowed-tools", seq)
	}

	md := &yaml.Node{Kind: yaml.MappingNode}
	put := func(key, v string) {
		if v != "" {
			md.Content = append(md.Content, text(key), text(v))
		}
	}
	keys := make([]string, 0, len(s.Metadata))
	for k := range s.Metadata {
		if !isOurs(k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		md.Content = append(md.Content, text(k), text(s.Metadata[k]))
	}
	put(Namespace+"plugin", s.Plugin)
	put(Namespace+"words", joinList(s.Words))
	put(Namespace+"words-de", joinList(s.WordsDE))
	put(Namespace+"related", joinList(s.Related))
	put(Namespace+"tier", string(s.Tier))
	put(Namespace+"schedule", s.Schedule)
	put(Namespace+"timezone", s.TimeZone)
	put(Namespace+"chat", s.Chat)
	put(Namespace+"agent", s.Agent)
	if s.Voice {
		put(Namespace+"voice", "true")
	}
	if s.Does != "" && s.Does != defaultKind(len(nonEmpty(s.AllowedTools)) > 0) {
		put(Namespace+"does", string(s.Does))
	}
	if len(md.Content) > 0 {
		add("metadata", md)
	}

	front, err := yaml.Marshal(m)
	if err != nil {
		// Unreachable: the tree holds only valid UTF-8 strings and a bool.
		panic("skills: rendering front matter: " + err.Error())
	}
	var b strings.Builder
	b.Grow(len(front) + len(s.Body) + 8)
	b.WriteString("---\n")
	b.Write(front)
	b.WriteString("---\n")
	b.WriteString(s.Body)
	return []byte(b.String())
}

// text is a string scalar; the encoder quotes it where YAML would read it as
// something else ("true", "0123", "~").
func text(v string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: strings.ToValidUTF8(v, string(utf8.RuneError))}
}

func joinList(words []string) string { return strings.Join(nonEmpty(words), ", ") }

func nonEmpty(list []string) []string {
	out := list[:0:0]
	for _, w := range list {
		if w = strings.TrimSpace(w); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// defaultKind is what a skill does when it does not say: a skill that
// names tools uses them.
func defaultKind(hasTools bool) Kind {
	if hasTools {
		return KindTools
	}
	return KindInstructions
}

// isOurs reports whether a metadata key is in jarvisbot's namespace. A bare
// "jarvisbot" key (a nested block) counts too, so that it cannot smuggle
// our fields past Import.
func isOurs(key string) bool {
	k := strings.ToLower(strings.TrimSpace(key))
	return k == strings.TrimSuffix(Namespace, ".") || strings.HasPrefix(k, Namespace)
}
