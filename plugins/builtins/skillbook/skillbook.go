// Package skillbook is the builtin tool through which the model reaches
// skills by name (S3) and an agent writes down a procedure as a skill of
// its own (S7).
//
// Reading is safe: "list" names the skills enabled for the agent and "use"
// returns one's instructions, so the model can ask for any enabled skill
// even when the message did not match its words. Asking for a service is
// safe too (C8): "tools" names a connected service, and "use" of a plugin's
// manual names the manual's plugin, in the call's Output.Services; the
// runtime then lets that service's tools join the turn, as far as the agent
// may have them. The book only passes the name on: what a name may bring
// is the catalog's decision, under the agent's grant and deny. Saving is recorded on the
// activity board (monitor): "save" writes an instruction-only skill into the
// agent's own folder, where it is active for that agent at once. A saved
// skill can carry no tier, schedule, tools or background work: an agent
// writes down how to do something, never what it may do. The owner makes
// it global with `jarvisbot skills promote`, as a draft that starts off.
package skillbook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/namedir"
	"github.com/jarvisbot/jarvisbot/skills"
)

// ID is the tool's capability id.
const ID = "builtin:skills"

// maxBody bounds the instructions an agent may save in one skill.
const maxBody = 32 << 10

const schema = `{"type":"object",` +
	`"properties":{` +
	`"action":{"type":"string","enum":["list","use","tools","save"],"description":"list the enabled skills, use one (get its instructions; a plugin's manual also brings that plugin's tools), get the tools of a connected service that your tools lack, or save a procedure as a new skill of your own"},` +
	`"name":{"type":"string","description":"skill name: lowercase letters, digits and hyphens, e.g. weekly-report; for use and save"},` +
	`"service":{"type":"string","description":"the name of a connected service from your instructions, e.g. google-maps; for tools: its tools join from your next step on"},` +
	`"description":{"type":"string","description":"what the skill does and when to use it, one or two sentences; for save"},` +
	`"body":{"type":"string","description":"the procedure as Markdown instructions, step by step; for save"},` +
	`"words":{"type":"array","items":{"type":"string"},"description":"words an owner would say when they want this skill; for save"}},` +
	`"required":["action"],"additionalProperties":false}`

// Capability describes the tool for the catalog.
func Capability() catalog.Capability {
	return catalog.Capability{
		ID:     ID,
		Kind:   catalog.KindBuiltin,
		Source: "builtin",
		Name:   "skills",
		Description: "Skills are short manuals for tasks. List the enabled skills, use one by name to get its " +
			"instructions (also when the owner's words did not bring it), ask for the tools of a connected " +
			"service you were not given, or save a repeatable procedure you worked out as a new skill of your " +
			"own, active for you at once.",
		InputSchema: json.RawMessage(schema),
		Tier:        catalog.TierMonitor,
		ActionTiers: map[string]catalog.Tier{
			"list": catalog.TierSafe,
			"use":  catalog.TierSafe,
			// Asking grants nothing: the service's tools come only as far
			// as the agent may have them, and each call runs by its tier.
			"tools": catalog.TierSafe,
			"save":  catalog.TierMonitor,
		},
		Connected: true,
	}
}

// Book serves one agent: the skills enabled for it, and its own folder.
type Book struct {
	dir     namedir.Dir
	enabled func(ctx context.Context) ([]*skills.Skill, error)
}

// New returns the tool for an agent whose own skills live in dir (see
// skills.Folder: a name the model sends reaches a path only through it);
// enabled lists the skills enabled for that agent now.
func New(dir namedir.Dir, enabled func(ctx context.Context) ([]*skills.Skill, error)) *Book {
	return &Book{dir: dir, enabled: enabled}
}

// Books is the runner of builtin:skills for the agent runtime
// (agents.Runner): each call is served by the book of the agent that made
// it, since every agent has its own folder.
type Books func(agent string) *Book

// Run runs one call with the calling agent's book.
func (books Books) Run(ctx context.Context, c catalog.Call) (catalog.Output, error) {
	return books(c.Agent).run(ctx, c.Args)
}

type callArgs struct {
	Action      string   `json:"action"`
	Name        string   `json:"name"`
	Service     string   `json:"service"`
	Description string   `json:"description"`
	Body        string   `json:"body"`
	Words       []string `json:"words"`
}

// Call runs one tool call and returns what the model reads. Errors are
// EINVALID when the model can correct its arguments and ENOTFOUND for an
// unknown skill; their messages are written for the model.
func (b *Book) Call(ctx context.Context, raw json.RawMessage) (string, error) {
	out, err := b.run(ctx, raw)
	return out.Text, err
}

// run runs one tool call: what the model reads, and the services it asked
// for (see Output.Services).
func (b *Book) run(ctx context.Context, raw json.RawMessage) (catalog.Output, error) {
	var a callArgs
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return catalog.Output{}, jarvisbot.Errorf(jarvisbot.EINVALID, `skills arguments are not a JSON object with the fields action, name, service, description, body, words: %w`, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return catalog.Output{}, jarvisbot.Errorf(jarvisbot.EINVALID, "skills arguments have text after the JSON object: send one object")
	}
	a.Name = strings.TrimPrefix(strings.TrimSpace(a.Name), "skill:")
	text, err := "", error(nil)
	switch strings.ToLower(strings.TrimSpace(a.Action)) {
	case "list":
		text, err = b.list(ctx)
	case "use":
		return b.use(ctx, a.Name)
	case "tools":
		return tools(a)
	case "save":
		text, err = b.save(a)
	case "":
		err = jarvisbot.Errorf(jarvisbot.EINVALID, `missing field "action": one of list, use, tools, save`)
	default:
		err = jarvisbot.Errorf(jarvisbot.EINVALID, "unknown action %q: use list, use, tools or save", a.Action)
	}
	return catalog.Output{Text: text}, err
}

// tools asks for a service's tools: the runtime decides what joins.
func tools(a callArgs) (catalog.Output, error) {
	name := strings.TrimSpace(a.Service)
	if name == "" {
		name = strings.TrimSpace(a.Name) // the model may put it where the skill's name goes
	}
	if name == "" {
		return catalog.Output{}, jarvisbot.Errorf(jarvisbot.EINVALID, `tools needs the field "service": the name of a connected service from your instructions`)
	}
	return catalog.Output{Text: "asked for the tools of " + name + ".", Services: []string{name}}, nil
}

func (b *Book) list(ctx context.Context) (string, error) {
	all, err := b.enabled(ctx)
	if err != nil {
		return "", err
	}
	if len(all) == 0 {
		return "no skills are enabled", nil
	}
	var out strings.Builder
	fmt.Fprintf(&out, "%d enabled skills (use one by name):\n", len(all))
	for _, s := range all {
		fmt.Fprintf(&out, "- %s: %s\n", s.Name, s.Description)
	}
	return out.String(), nil
}

// use returns a skill's instructions. A plugin's manual is read to use
// the plugin, so it also asks for the plugin's tools.
func (b *Book) use(ctx context.Context, name string) (catalog.Output, error) {
	if name == "" {
		return catalog.Output{}, jarvisbot.Errorf(jarvisbot.EINVALID, `use needs the field "name"; list shows the enabled skills`)
	}
	all, err := b.enabled(ctx)
	if err != nil {
		return catalog.Output{}, err
	}
	for _, s := range all {
		if s.Name == name {
			out := catalog.Output{Text: fmt.Sprintf("skill %s: %s\n\n%s", s.Name, s.Description, strings.TrimSpace(s.Body)), Skills: []string{s.Name}}
			if s.Plugin != "" {
				out.Services = []string{s.Plugin}
			}
			return out, nil
		}
	}
	return catalog.Output{}, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no enabled skill named %q; list shows the enabled skills", name)
}

// save writes an instruction-only skill into the agent's folder. The text
// goes through the same parser as every skill, so a saved skill is valid
// by construction and its errors name the field to fix.
func (b *Book) save(a callArgs) (string, error) {
	switch {
	case a.Name == "":
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, `save needs the field "name", e.g. "weekly-report"`)
	case strings.TrimSpace(a.Body) == "":
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, `save needs the field "body": the procedure as Markdown instructions`)
	case len(a.Body) > maxBody:
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "the body is %d bytes; a skill is a short manual of at most %d KiB", len(a.Body), maxBody>>10)
	}
	// The name is checked before it becomes a path, and the agent's folder
	// for it must be a real folder or none: a link is not written through.
	if err := b.dir.Check(a.Name); err != nil {
		return "", notSaved(err)
	}
	switch _, kind, err := b.dir.Stat(a.Name); {
	case err != nil:
		return "", err
	case kind == namedir.Link:
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "the skill was not saved: its folder %s in your skills is a symbolic link; save it under another name", a.Name)
	case kind == namedir.File:
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "the skill was not saved: %s in your skills is a file, not a skill folder; save it under another name", a.Name)
	}
	s := &skills.Skill{Name: a.Name, Description: strings.TrimSpace(a.Description), Body: strings.TrimSpace(a.Body) + "\n", Words: a.Words, Does: skills.KindInstructions, Origin: skills.Own}
	data := s.Render()
	dir := filepath.Join(b.dir.Path(), a.Name)
	if _, err := skills.Parse(filepath.Join(dir, skills.FileName), data); err != nil {
		return "", notSaved(err)
	}
	if err := os.MkdirAll(b.dir.Path(), 0o700); err != nil {
		return "", fmt.Errorf("create the agent's skills folder: %w", err)
	}
	// Through an os.Root: were the folder swapped for a link now, nothing
	// outside would be written.
	root, err := os.OpenRoot(b.dir.Path())
	if err != nil {
		return "", fmt.Errorf("open the agent's skills folder: %w", err)
	}
	defer root.Close()
	if err := root.MkdirAll(a.Name, 0o700); err != nil {
		return "", fmt.Errorf("create skill folder %s: %w", a.Name, err)
	}
	replaced := false
	if _, err := root.Lstat(filepath.Join(a.Name, skills.FileName)); err == nil {
		replaced = true
	}
	tmp := filepath.Join(a.Name, ".SKILL.md.tmp")
	if err := root.WriteFile(tmp, data, 0o600); err != nil {
		return "", fmt.Errorf("write skill %s: %w", a.Name, err)
	}
	if err := root.Rename(tmp, filepath.Join(a.Name, skills.FileName)); err != nil {
		if rerr := root.Remove(tmp); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, fmt.Errorf("its temporary file %s is left in the agent's skills folder (%w): the owner can remove it", tmp, rerr))
		}
		return "", fmt.Errorf("write skill %s: %w", a.Name, err)
	}
	verb := "saved"
	if replaced {
		verb = "updated"
	}
	return fmt.Sprintf("%s skill %s; it is active for you now. The owner can make it global with: jarvisbot skills promote %s", verb, a.Name, a.Name), nil
}

// notSaved words a refused name or text for the model, which can correct it.
func notSaved(err error) error {
	var je *jarvisbot.Error
	if errors.As(err, &je) && je.Code == jarvisbot.EINVALID {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "the skill was not saved: %s", je.Message)
	}
	return err
}
