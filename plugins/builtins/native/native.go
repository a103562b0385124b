// Package native holds what the built-in plugins' tools have in common
// (SPEC P6, C1, C2): a plugin shipped with "builtin": true has no MCP
// server; its tools are Go code in a package below this one (google,
// spotify), each a Tool with a capability id plugin:PLUGIN/TOOL, a tier, an
// input schema the model fills, and a Run that answers in short plain text.
// The catalog holds them like an MCP server's tools, routed by the
// plugin's manual, and the runtime runs them through Runner.
package native

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
)

// MaxResult bounds the text one call returns: a turn's context is not
// flooded by one long mail or a page of events.
const MaxResult = 8000

// A Tool is one native tool of a built-in plugin.
type Tool struct {
	Name        string // the name the model sees, e.g. list_events
	Description string // for the model: what it does and when to use it
	Schema      string // JSON Schema of the arguments, compact
	Tier        catalog.Tier
	// Run does one call. Its error is for the model: EINVALID when the
	// model can correct its arguments, ENOTFOUND when what it named does
	// not exist, EUNAVAILABLE when the service cannot be reached.
	Run func(ctx context.Context, args json.RawMessage) (string, error)
	// Describe, when set, says in the owner's words what a call will do,
	// for the approval request the owner decides on (CH2): the recipient
	// and subject of a mail, the event and its time. It changes nothing;
	// it may read what names things (the event an id points to) within
	// ctx. ok false (arguments it cannot read) leaves the call to the
	// generic labelled form.
	Describe func(ctx context.Context, args json.RawMessage) (d catalog.Description, ok bool)
}

// ID is a tool's capability id: plugin:PLUGIN/NAME.
func ID(plugin, tool string) string { return "plugin:" + plugin + "/" + tool }

// Capability describes t, a tool of plugin, as a catalog entry: served by
// the plugin as if it were an MCP server named like it, so the gate routes
// it by the plugin's manual.
func (t Tool) Capability(plugin string, connected bool) catalog.Capability {
	return catalog.Capability{
		ID:          ID(plugin, t.Name),
		Kind:        catalog.KindPlugin,
		Source:      plugin,
		Name:        t.Name,
		Description: t.Description,
		InputSchema: json.RawMessage(t.Schema),
		Tier:        t.Tier,
		Connected:   connected,
		Server:      plugin,
		Tool:        t.Name,
	}
}

// Decode reads a call's arguments into v, refusing unknown fields, with an
// error the model can act on.
func Decode(args json.RawMessage, v any) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "the arguments do not fit the tool's schema: %v", err)
	}
	return nil
}

// Need is the error for a required argument the model left empty.
func Need(name string) error {
	return jarvisbot.Errorf(jarvisbot.EINVALID, "%s is required", name)
}

// Limit is n bounded to 1..most, with def for 0.
func Limit(n, def, most int) int {
	switch {
	case n <= 0:
		return def
	case n > most:
		return most
	}
	return n
}

// Clip cuts s to at most n bytes on a rune boundary, saying how much was
// left out, so the model knows the text goes on.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[… %d more characters not shown]", utf8.RuneCountInString(s[cut:]))
}

// OneLine folds a text's whitespace runs to single spaces, for a subject or
// a snippet shown on one line.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Runner runs the native tools of the built-in plugins by capability id
// (agents.Runner's shape, kept here so the catalog side needs no agents).
type Runner struct {
	tools map[string]Tool
}

// NewRunner returns a Runner for the tools of each plugin in sets.
func NewRunner(sets map[string][]Tool) *Runner {
	r := &Runner{tools: map[string]Tool{}}
	for plugin, tools := range sets {
		for _, t := range tools {
			r.tools[ID(plugin, t.Name)] = t
		}
	}
	return r
}

// Run runs the call's tool and returns its text, clipped to MaxResult.
func (r *Runner) Run(ctx context.Context, c catalog.Call) (catalog.Output, error) {
	t, ok := r.tools[c.Cap.ID]
	if !ok {
		return catalog.Output{}, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no built-in tool %s", c.Cap.ID)
	}
	text, err := t.Run(ctx, c.Args)
	if err != nil {
		return catalog.Output{}, err
	}
	return catalog.Output{Text: Clip(text, MaxResult)}, nil
}

// Describe says what a call of a tool that describes its calls will do
// (Tool.Describe); ok is false for the others.
func (r *Runner) Describe(ctx context.Context, c catalog.Call) (catalog.Description, bool) {
	t, ok := r.tools[c.Cap.ID]
	if !ok || t.Describe == nil {
		return catalog.Description{}, false
	}
	return t.Describe(ctx, c.Args)
}
