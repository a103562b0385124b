package skills

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/jarvisbot/jarvisbot"
)

// CodexPolicyFile is where a Codex skill keeps its app-specific settings,
// relative to the skill folder.
const CodexPolicyFile = "agents/openai.yaml"

// Import reads a SKILL.md written for Claude Code, Codex or Cursor (S6).
// It keeps only descriptive fields (name, description, when_to_use,
// license, compatibility, argument-hint, and metadata outside our
// namespace) and the restricting disable-model-invocation; everything that
// would grant behaviour (allowed tools, hooks, model or agent choice, file
// triggers, and any jarvisbot.* metadata: trigger words, a tier, a
// schedule, a kind) is left out and listed in Skill.Dropped with the
// reason. The result is KindInstructions with the default tier.
//
// The name may be missing, as Claude Code allows; it is then the folder's.
// The same checks as Parse apply otherwise, with the same errors.
func Import(path string, data []byte) (*Skill, error) {
	return parse(path, data, Imported)
}

// ImportDir imports DIR/SKILL.md with the same safeguards as Load, and adds
// what ImportCodexPolicy drops from DIR/agents/openai.yaml when present. It
// returns the SKILL.md as it was read too, for the owner to see in full:
// the very bytes that were parsed, not a second reading of the file.
func ImportDir(dir string) (*Skill, []byte, error) {
	path, data, err := readSkillFile(dir)
	if err != nil {
		return nil, nil, err
	}
	s, err := Import(path, data)
	if err != nil {
		return nil, nil, err
	}
	policy, err := readCodexPolicy(dir)
	if err != nil {
		return nil, nil, err
	}
	if policy != nil {
		s.Dropped = append(s.Dropped, ImportCodexPolicy(policy)...)
	}
	return s, data, nil
}

// readCodexPolicy returns the bytes of DIR/agents/openai.yaml, or nil when
// there is none. Like SKILL.md it is read only from inside dir, and under
// the same size limit.
func readCodexPolicy(dir string) ([]byte, error) {
	path := filepath.Join(dir, filepath.FromSlash(CodexPolicyFile))
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "skill folder %s cannot be opened: %w", dir, err)
	}
	defer root.Close()
	f, err := root.Open(CodexPolicyFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "%s: %w; remove it or keep it inside the skill folder", path, err)
	}
	defer f.Close()
	limit := FileLimit()
	limit.What = "a Codex " + CodexPolicyFile
	return limit.ReadOpened(f, path)
}

// ImportCodexPolicy reads a Codex agents/openai.yaml and reports every
// top-level entry as dropped: jarvisbot takes nothing from it. Its
// dependencies, permissions and policy would grant behaviour; its interface
// is display data for Codex's own app. A file that cannot be read is
// reported as one dropped entry, since nothing in it is needed.
func ImportCodexPolicy(data []byte) (dropped []Dropped) {
	field := func(key string) string { return CodexPolicyFile + ":" + key }
	whole := func(reason string) []Dropped {
		return []Dropped{{Field: CodexPolicyFile, Reason: reason}}
	}
	if len(data) > MaxFileSize {
		return whole("too large to read; ignored whole")
	}
	if checkText(CodexPolicyFile, data) != nil {
		return whole("not text; ignored whole")
	}
	defer func() {
		if recover() != nil {
			dropped = whole("cannot be read as YAML; ignored whole")
		}
	}()
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return whole("malformed YAML; ignored whole")
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil
	}
	root := deref(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		return whole("not a mapping of fields; ignored whole")
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := deref(root.Content[i])
		if k == nil || k.Kind != yaml.ScalarNode {
			continue
		}
		var reason string
		switch k.Value {
		case "dependencies":
			reason = "asks for tools or MCP servers to be installed; add them as plugins or MCP servers if you want them"
		case "permissions":
			reason = "asks for permissions; in jarvisbot the catalog's tiers and approvals decide"
		case "policy":
			reason = "sets when Codex may invoke the skill; use the skill's own switch and disable-model-invocation instead"
		case "interface":
			reason = "display data for Codex's app (name, icons, colour, prompt); not used"
		default:
			reason = "not a Codex field jarvisbot knows; ignored"
		}
		dropped = append(dropped, Dropped{Field: field(k.Value), Reason: reason})
	}
	return dropped
}

// dropReason says why a field is not honoured. field is a top-level field
// or a lowercased key of our namespace under metadata. Own skills get the
// same reasons for the fields they cannot use.
func dropReason(field string) string {
	switch field {
	case "allowed-tools":
		return "pre-approves tools; an imported skill uses only the tools the catalog gives the agent, at their own tiers"
	case "disallowed-tools":
		return "filters tools per skill, which jarvisbot does not do; the catalog decides which tools an agent has"
	case "hooks":
		return "runs commands on skill events; jarvisbot runs no hooks from a skill"
	case "model":
		return "chooses the model; the agent's configuration decides"
	case "effort":
		return "chooses the model's effort; the agent's configuration decides"
	case "context":
		return "runs the skill in a separate sub-agent; jarvisbot runs skills in the agent's own turn"
	case "agent":
		return "chooses the agent that runs the skill; jarvisbot decides who runs what"
	case "paths", "globs":
		return "activates the skill by file patterns (a trigger); an imported skill is found by its description"
	case "alwaysApply":
		return "applies the skill to every turn (a trigger); an imported skill is found by its description"
	case "shell":
		return "runs shell commands written in the body; jarvisbot does not run them"
	case "arguments":
		return "substitutes invocation arguments into the body; not supported"
	case "user-invocable":
		return "controls Claude Code's slash menu; every jarvisbot skill has its own switch instead"
	case Namespace + "plugin":
		return "binds the skill to a plugin's routing; only shipped and own skills can"
	case Namespace + "words", Namespace + "words-de", Namespace + "related":
		return "claims trigger words; an imported skill is found by its name and description"
	case Namespace + "tier":
		return "sets a risk tier; an imported skill keeps the default tier"
	case Namespace + "schedule", Namespace + "timezone":
		return "schedules background work; an imported skill never runs by itself"
	case Namespace + "agent", Namespace + "chat":
		return "chooses who runs a scheduled run, or where its report goes; an imported skill never runs by itself"
	case Namespace + "voice":
		return "lets the skill start by voice (a trigger); not for imported skills"
	case Namespace + "does":
		return "claims what the skill does; an imported skill is instructions only"
	}
	if isOurs(field) {
		return "jarvisbot's own metadata; not honoured on an imported skill"
	}
	if strings.Contains(field, ".") {
		return "not a field jarvisbot knows; ignored"
	}
	return "not a field of the Agent Skills format or one jarvisbot knows; ignored"
}
