package agents

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/catalog/builtin/skillbook"
	"github.com/jarvisbot/jarvisbot/catalog/builtin/wiki"
	"github.com/jarvisbot/jarvisbot/catalog/clitool"
	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
)

// Call is one tool call to run: the capability, its arguments, and who
// asked.
type Call struct {
	Cap   *catalog.Capability
	Args  json.RawMessage
	Agent string
	Chat  string
}

// Output is what a tool said.
type Output struct {
	Text    string
	IsError bool
}

// Executor runs capabilities of every kind behind one interface (A2).
type Executor interface {
	Execute(ctx context.Context, c Call) (Output, error)
}

// Tools is the executor over jarvisbot's real tools: the builtins, MCP
// servers through the host, and connected CLI programs.
type Tools struct {
	Wiki *wiki.Wiki
	// Skillbook returns the builtin:skills tool of an agent (its own
	// folder differs per agent).
	Skillbook func(agent string) *skillbook.Book
	MCP       *mcphost.Host
	CLI       map[string]clitool.Tool // by name
	Lookup    clitool.Lookup
}

// Execute runs one call.
func (t *Tools) Execute(ctx context.Context, c Call) (Output, error) {
	cp := c.Cap
	switch cp.Kind {
	case catalog.KindBuiltin:
		switch cp.ID {
		case "builtin:wiki":
			if t.Wiki != nil {
				return text(t.Wiki.Call(ctx, c.Args))
			}
		case skillbook.ID:
			if t.Skillbook != nil {
				return text(t.Skillbook(c.Agent).Call(ctx, c.Args))
			}
		}
	case catalog.KindMCP:
		if t.MCP != nil {
			r, err := t.MCP.Call(ctx, cp.Server, cp.Tool, c.Args)
			return Output{Text: r.Text, IsError: r.IsError}, err
		}
	case catalog.KindCLI:
		if tool, ok := t.CLI[strings.TrimPrefix(cp.ID, "cli:")]; ok {
			r, err := tool.Call(ctx, c.Args, t.Lookup, 0)
			return Output{Text: r.Text, IsError: r.ExitCode != 0}, err
		}
	}
	return Output{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s cannot be run here (no executor for it is connected)", cp.ID)
}

func text(s string, err error) (Output, error) { return Output{Text: s}, err }
