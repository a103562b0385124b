package catalog

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/jarvisbot/jarvisbot"
)

// Reread reads a server's stored tool list again, as SetStoredServer's
// read did: the store's copy, not the server.
//
// A stored list's input schemas are most of its size (190 KB of the 211
// tools the footprint serves) and are needed only when a tool is offered,
// before its server answers with its live list; the gate reads each
// tool's enum words when the list is read (shelvedCaps). Held, they cost
// every process their size about twice over, since the collector lets the
// heap grow to twice what is live, and more the more tools the owner
// adds: one second after a first turn RssAnon measured 8.6 MiB without
// them against 8.7 with them (medians of 12 interleaved pairs). Reading
// them again costs one row of the store per server a turn offers, and the
// server, started when its tools are offered, replaces the stored list
// with its live one.
type Reread func(ctx context.Context) ([]SnapshotTool, error)

// shelvedCaps gives add, one at a time, the capabilities serverCaps makes
// of a stored list (raw, decoded as ReadStoredList decodes it), but
// without their input schemas, for View.WithSchemas to read again: each
// schema is summed up as the list is decoded (schemaFacts), and its bytes
// are never copied, where decoding whole SnapshotTools copied every
// schema only for the catalog to drop it (~200 KB at the first turn for
// the footprint's 211 tools), and no list of them is built. It returns
// ReadStoredList's error for a list that does not decode, which holds no
// tools: the caller takes back what add was given.
func shelvedCaps(s Server, raw string, add func(Capability)) error {
	var seen map[string]bool
	return eachTool(raw, func(t *shelvedTool) {
		// AcceptTools's rules: the tool itself (takes), and the first
		// listing of a name.
		if !t.InputSchema.takes(t.Name) || seen[t.Name] {
			return
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		seen[t.Name] = true
		size := len(defaultSchema)
		if t.InputSchema.set {
			size = t.InputSchema.size
		}
		cp := toolCap(s, &SnapshotTool{Name: t.Name, Title: t.Title, Description: t.Description, Annotations: t.Annotations}, nil, t.InputSchema.enums)
		cp.shelved = size
		add(cp)
	})
}

// shelvedTool is a SnapshotTool as shelvedCaps reads it: the same fields,
// of types that decode as SnapshotTool's do, but the schema summed up.
type shelvedTool struct {
	Name        string       `json:"name"`
	Title       string       `json:"title"`
	Description string       `json:"description"`
	InputSchema schemaFacts  `json:"inputSchema"`
	Annotations *Annotations `json:"annotations"`
}

// schemaFacts is what the catalog keeps of an input schema it leaves in
// the store: whether the tool gave one and it is a JSON object
// (schemaHead), its size once compacted (as offered) and its enums'
// words. The decoder has checked that it is valid JSON.
type schemaFacts struct {
	schemaHead
	size  int
	enums []string
}

func (s *schemaFacts) UnmarshalJSON(b []byte) error {
	if err := s.schemaHead.UnmarshalJSON(b); err != nil {
		return err
	}
	if s.object {
		s.size, s.enums = compactLen(b), validEnumValues(b)
	}
	return nil
}

// WithSchemas returns caps with every input schema in place: a
// capability whose schema its stored list keeps out of memory is replaced
// by a copy that holds the schema read again, one read per server. The
// others, and caps itself, are returned as they are. A list that cannot
// be read again, or no longer holds the tool, leaves the copy with the
// schema of a tool that takes any arguments, so the tool can still be
// offered (its server checks what it is given), and the error says which.
func (v *View) WithSchemas(ctx context.Context, caps []*Capability) ([]*Capability, error) {
	var out []*Capability
	var errs []error
	type list struct {
		tools []SnapshotTool
		read  bool // it could be read again
	}
	lists := map[string]list{}
	for i, cp := range caps {
		if cp.InputSchema != nil || cp.shelved == 0 {
			if out != nil {
				out = append(out, cp)
			}
			continue
		}
		if out == nil {
			out = append(make([]*Capability, 0, len(caps)), caps[:i]...)
		}
		// A capability of an earlier view whose server has answered since
		// takes the schema this view holds.
		if j, ok := v.byID[cp.ID]; ok && v.caps[j].InputSchema != nil {
			c := *cp
			c.InputSchema, c.shelved = v.caps[j].InputSchema, 0
			out = append(out, &c)
			continue
		}
		l, seen := lists[cp.Server]
		if !seen {
			tools, err := v.rereadList(ctx, cp.Server)
			if err != nil {
				errs = append(errs, err) // once per server
			}
			l = list{tools: tools, read: err == nil}
			lists[cp.Server] = l
		}
		c := *cp
		c.InputSchema, c.shelved = defaultSchema, 0
		if schema, ok := schemaOf(l.tools, cp.Tool); ok {
			c.InputSchema = schema
		} else if l.read {
			errs = append(errs, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "MCP server %s: its stored tool list no longer holds %s", cp.Server, cp.Tool))
		}
		out = append(out, &c)
	}
	if out == nil {
		return caps, nil
	}
	return out, errors.Join(errs...)
}

// rereadList reads a server's stored list again, as the catalog takes it.
func (v *View) rereadList(ctx context.Context, server string) ([]SnapshotTool, error) {
	reread := v.reread[server]
	if reread == nil {
		return nil, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "MCP server %s: no stored tool list to read its schemas from", server)
	}
	tools, err := reread(ctx)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.ErrorCode(err), "MCP server %s: read its stored tool list again for the offered tools' schemas: %w", server, err)
	}
	tools, _ = AcceptTools(server, tools)
	return tools, nil
}

// schemaOf returns tool's input schema from an accepted list, as
// serverCaps holds it.
func schemaOf(tools []SnapshotTool, tool string) (json.RawMessage, bool) {
	for _, t := range tools {
		if t.Name == tool {
			return offeredSchema(t.InputSchema), true
		}
	}
	return nil, false
}

// WithSchemas is View.WithSchemas on the plan's view: the tools a turn
// offers, their schemas in place.
func (pl *Plan) WithSchemas(ctx context.Context, caps []*Capability) ([]*Capability, error) {
	return pl.view.WithSchemas(ctx, caps)
}
