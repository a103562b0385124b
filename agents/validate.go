package agents

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/jarvisbot/jarvisbot/catalog"
)

// schemaCache compiles each tool's input schema once.
type schemaCache struct {
	m sync.Map // schema text -> *jsonschema.Schema, or nil when it does not compile
}

// validate checks args against the capability's schema and returns why
// they do not match, or "". A schema that cannot be compiled (a remote
// $ref, a dialect the validator does not know) does not block the call:
// the tool checks its own input too.
func (c *schemaCache) validate(cp *catalog.Capability, args json.RawMessage) string {
	if len(cp.InputSchema) == 0 {
		return ""
	}
	key := string(cp.InputSchema)
	v, ok := c.m.Load(key)
	if !ok {
		v = compile(cp.InputSchema)
		c.m.Store(key, v)
	}
	sch, _ := v.(*jsonschema.Schema)
	if sch == nil {
		return ""
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return "not valid JSON"
	}
	if err := sch.Validate(doc); err != nil {
		msg := err.Error()
		if i := strings.Index(msg, "\n"); i >= 0 {
			msg = strings.TrimSpace(strings.ReplaceAll(msg[i+1:], "\n", "; "))
		}
		if len(msg) > 300 {
			msg = msg[:297] + "..."
		}
		return msg
	}
	return ""
}

func compile(schema json.RawMessage) *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil
	}
	if m, ok := doc.(map[string]any); ok {
		delete(m, "$schema") // draft-07, 2020-12, …: validate by the current draft
		delete(m, "$id")
	}
	cmp := jsonschema.NewCompiler()
	if err := cmp.AddResource("tool.json", doc); err != nil {
		return nil
	}
	sch, err := cmp.Compile("tool.json")
	if err != nil {
		return nil
	}
	return sch
}
