package plugins

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// The structure of plugin.json and mcp.json (types, required and known
// fields, closed sets, lengths, allowed characters) is written down as JSON
// Schemas next to this file; the parsers check by hand only what a schema
// cannot say. A schema property's description is the advice its error
// messages give.
//
//go:embed plugin.schema.json mcp.schema.json
var schemaFiles embed.FS

// The schema files.
const (
	manifestSchemaFile = "plugin.schema.json"
	mcpSchemaFile      = "mcp.schema.json"
)

// schemas compiles the two schemas the first time a file of their kind is
// checked: most runs of jarvisbot check no plugin at all, and the folders
// of one load share one value.
type schemas struct {
	manifest func() (*jsonschema.Schema, error)
	mcp      func() (*jsonschema.Schema, error)
}

func newSchemas() *schemas {
	return &schemas{
		manifest: sync.OnceValues(func() (*jsonschema.Schema, error) { return compileSchema(manifestSchemaFile) }),
		mcp:      sync.OnceValues(func() (*jsonschema.Schema, error) { return compileSchema(mcpSchemaFile) }),
	}
}

// shippedSchemas checks nothing against the schemas, nor for names given
// twice: it is for the plugins that ship inside the binary, which their
// tests check that way (TestShippedPluginsPassTheirSchemas). A process
// that opens the store then neither compiles the schemas nor re-walks
// every manifest as a generic document, which was most of the ~3.3 MB its
// first turn allocated to read the store. The hand checks still run.
func shippedSchemas() *schemas {
	none := func() (*jsonschema.Schema, error) { return nil, nil }
	return &schemas{manifest: none, mcp: none}
}

func compileSchema(name string) (*jsonschema.Schema, error) {
	data, err := schemaFiles.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("the embedded schema %s is missing: %w", name, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("the embedded schema %s is not JSON: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name, doc); err != nil {
		return nil, fmt.Errorf("the embedded schema %s: %w", name, err)
	}
	sch, err := c.Compile(name)
	if err != nil {
		return nil, fmt.Errorf("the embedded schema %s does not compile: %w", name, err)
	}
	return sch, nil
}

// leniency decides which schema failures only warn: those the
// specification lets an app ignore. It returns the warning's message.
type leniency func(at []string, k jsonschema.ErrorKind, sch *jsonschema.Schema, field string) (msg string, warn bool)

// schemaCheck validates doc against sch and records every failure as a
// Problem naming its field, in the order of the file (order, from
// duplicates), one error per field; lenient may make one a warning.
func (c *checker) schemaCheck(sch *jsonschema.Schema, doc any, order map[string]int, lenient leniency) {
	err := sch.Validate(doc)
	if err == nil {
		return
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		c.fail("", "cannot be checked: %v", err)
		return
	}
	type leaf struct {
		e  *jsonschema.ValidationError
		at []string
	}
	var leaves []leaf
	var walk func(e *jsonschema.ValidationError, parent []string)
	walk = func(e *jsonschema.ValidationError, parent []string) {
		if k, names := e.ErrorKind.(*kind.PropertyNames); names {
			// Its location is the name's own, empty: find the object below
			// the parent's location that has the name, under the schema
			// whose propertyNames failed.
			obj := strings.TrimSuffix(e.SchemaURL, "/propertyNames")
			leaves = append(leaves, leaf{e, objectAt(sch, doc, parent, k.Property, obj)})
			return
		}
		if len(e.Causes) == 0 {
			leaves = append(leaves, leaf{e, e.InstanceLocation})
			return
		}
		for _, cause := range e.Causes {
			walk(cause, e.InstanceLocation)
		}
	}
	walk(ve, nil)
	type found struct {
		at    []string
		field string
		msg   string
		warn  bool
		seq   int
		typ   bool
	}
	var all []found
	for _, lf := range leaves {
		e, at := lf.e, lf.at
		sub := schemaAt(sch, doc, at)
		for _, f := range c.describe(doc, at, e.ErrorKind, sub) {
			fd := found{at: at, field: f.field, msg: f.msg, seq: seqOf(order, f.field, fieldOf(doc, at))}
			_, fd.typ = e.ErrorKind.(*kind.Type)
			if lenient != nil {
				if msg, warn := lenient(at, e.ErrorKind, sub, f.field); warn {
					fd.msg, fd.warn = msg, true
				}
			}
			all = append(all, fd)
		}
	}
	// File order; on one field a wrong type first: the rest follows from it.
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].seq != all[j].seq {
			return all[i].seq < all[j].seq
		}
		return all[i].typ && !all[j].typ
	})
	for _, f := range all {
		if f.warn {
			c.warn(f.field, "%s", f.msg)
		} else if c.ok(f.field) {
			c.fail(f.field, "%s", f.msg)
		}
	}
}

type fieldMessage struct{ field, msg string }

// describe words one schema failure at the instance location at as
// today's messages have it: the field, and what is wrong with it.
func (c *checker) describe(doc any, at []string, k jsonschema.ErrorKind, sub *jsonschema.Schema) []fieldMessage {
	f := fieldOf(doc, at)
	switch k := k.(type) {
	case *kind.Type:
		got := article(k.Got)
		switch {
		case len(at) == 0 && slices.Contains(k.Want, "object"):
			return []fieldMessage{{f, "must hold a JSON object, not " + got}}
		case slices.Contains(k.Want, "string"):
			return []fieldMessage{{f, "must be a string, not " + got}}
		case slices.Contains(k.Want, "boolean"):
			return []fieldMessage{{f, "must be true or false, not " + got}}
		case slices.Contains(k.Want, "array"):
			return []fieldMessage{{f, "must be an array of strings, not " + got}}
		case slices.Contains(k.Want, "object"):
			return []fieldMessage{{f, "must be an object, not " + got}}
		}
	case *kind.Required:
		var out []fieldMessage
		for _, name := range k.Missing {
			msg := "missing"
			if p := property(sub, name); p != nil {
				switch {
				case p.Const != nil:
					msg = fmt.Sprintf("missing: want %q", *p.Const)
				case p.Enum != nil:
					msg = "missing: use " + oneOf(p.Enum.Values)
				case p.Description != "":
					msg = "missing: " + p.Description
				}
			}
			out = append(out, fieldMessage{field(f, name), msg})
		}
		return out
	case *kind.AdditionalProperties:
		var out []fieldMessage
		for _, name := range k.Properties {
			msg := "unknown field"
			if sub != nil && len(sub.Properties) > 0 {
				msg += fmt.Sprintf(": %s has only %s", titleOf(sub), list(sortedKeys(sub.Properties), "and"))
			}
			out = append(out, fieldMessage{field(f, name), msg})
		}
		return out
	case *kind.PropertyNames:
		what := "a valid name"
		if sub != nil && sub.PropertyNames != nil && sub.PropertyNames.Description != "" {
			what = sub.PropertyNames.Description
		}
		return []fieldMessage{{field(f, k.Property), "is not " + what}}
	case *kind.Const:
		return []fieldMessage{{f, fmt.Sprintf("%.80s is not a supported %s: want %s", display(k.Got), describeAs(sub, "value"), display(k.Want))}}
	case *kind.Enum:
		return []fieldMessage{{f, fmt.Sprintf("unknown %s %.40s: use %s", describeAs(sub, "value"), display(k.Got), oneOf(k.Want))}}
	case *kind.MaxLength:
		return []fieldMessage{{f, fmt.Sprintf("is longer than %d characters", k.Want)}}
	case *kind.MaxItems:
		return []fieldMessage{{f, fmt.Sprintf("has %d entries; %s holds at most %d", k.Got, titleOf(sub), k.Want)}}
	case *kind.Pattern:
		if sub != nil && sub.Description != "" {
			return []fieldMessage{{f, "must be " + sub.Description}}
		}
	}
	return []fieldMessage{{f, "fails the schema's " + strings.Join(k.KeywordPath(), "/") + " rule"}}
}

// schemaAt is the schema that applies to the value at the instance
// location at: properties, additionalProperties and items, $refs followed.
func schemaAt(sch *jsonschema.Schema, doc any, at []string) *jsonschema.Schema {
	s := deref(sch)
	v := doc
	for _, tok := range at {
		if s == nil {
			return nil
		}
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
			if p, ok := s.Properties[tok]; ok {
				s = deref(p)
			} else if ap, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
				s = deref(ap)
			} else {
				return nil
			}
		case []any:
			var i int
			if _, err := fmt.Sscan(tok, &i); err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
			s = deref(s.Items2020)
		default:
			return nil
		}
	}
	return s
}

// objectAt finds, at or below the instance location at, the object that
// has the member name and is checked by the schema at location loc.
func objectAt(sch *jsonschema.Schema, doc any, at []string, name, loc string) []string {
	var found []string
	var search func(at []string, depth int) bool
	search = func(at []string, depth int) bool {
		v := valueAt(doc, at)
		obj, ok := v.(map[string]any)
		if !ok || depth > 4 {
			return false
		}
		if _, has := obj[name]; has {
			if s := schemaAt(sch, doc, at); s != nil && s.Location == loc {
				found = at
				return true
			}
		}
		for _, k := range sortedKeys(obj) {
			if search(append(slices.Clip(at), k), depth+1) {
				return true
			}
		}
		return false
	}
	if search(at, 0) {
		return found
	}
	return at
}

func valueAt(doc any, at []string) any {
	v := doc
	for _, tok := range at {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = obj[tok]
	}
	return v
}

func deref(s *jsonschema.Schema) *jsonschema.Schema {
	for i := 0; s != nil && s.Ref != nil && i < 8; i++ {
		s = s.Ref
	}
	return s
}

func property(s *jsonschema.Schema, name string) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	return deref(s.Properties[name])
}

// titleOf names what a schema describes ("an author", "mcp.json").
func titleOf(s *jsonschema.Schema) string {
	if s != nil && s.Title != "" {
		return s.Title
	}
	return "it"
}

func describeAs(s *jsonschema.Schema, fallback string) string {
	if s != nil && s.Description != "" {
		return s.Description
	}
	return fallback
}

// fieldOf names the value at the instance location at as problems name
// fields: name, author.email, keywords[1], mcpServers["bad name!"].
func fieldOf(doc any, at []string) string {
	f := ""
	v := doc
	for _, tok := range at {
		switch x := v.(type) {
		case []any:
			f += "[" + tok + "]"
			var i int
			if _, err := fmt.Sscan(tok, &i); err == nil && i >= 0 && i < len(x) {
				v = x[i]
			} else {
				v = nil
			}
		case map[string]any:
			f = field(f, tok)
			v = x[tok]
		default:
			f = field(f, tok)
			v = nil
		}
	}
	return f
}

// seqOf is where a field comes in the file: its own position, else its
// parent's (a missing field), else the end.
func seqOf(order map[string]int, fields ...string) int {
	for _, f := range fields {
		if n, ok := order[f]; ok {
			return n
		}
	}
	return len(order) + 1
}

// article names a JSON type for messages: "a string", "an array", "null".
func article(t string) string {
	switch t {
	case "null":
		return "null"
	case "array", "object", "integer":
		return "an " + t
	}
	return "a " + t
}

// display shows a JSON value in a message: a string quoted, anything else
// as JSON.
func display(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// oneOf lists the values one may choose: "a, b or c".
func oneOf(values []any) string {
	var s []string
	for _, v := range values {
		if str, ok := v.(string); ok {
			s = append(s, str)
		} else {
			s = append(s, display(v))
		}
	}
	return list(s, "or")
}

// list joins words for a message: "a, b and c".
func list(words []string, conj string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conj + " " + words[len(words)-1]
}

// duplicates walks the JSON value raw (already known to be valid) and
// reports every name given twice in one object, which a schema cannot see
// (a decoder keeps one of the two). It returns the position of each field
// in the file, for ordering problems.
func (c *checker) duplicates(raw json.RawMessage) map[string]int {
	order := map[string]int{"": 0}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type frame struct {
		field  string
		array  bool
		index  int
		names  map[string]bool
		expect bool // an object expects a name next
	}
	var stack []*frame
	last := func() *frame {
		if len(stack) == 0 {
			return nil
		}
		return stack[len(stack)-1]
	}
	pending := "" // the field whose name came last
	for {
		tok, err := dec.Token()
		if err != nil {
			return order
		}
		top := last()
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			if p := last(); p != nil && !p.array {
				p.expect = true
			}
			continue
		}
		if top != nil && !top.array && top.expect {
			name, _ := tok.(string)
			pending = field(top.field, name)
			if top.names[name] {
				c.fail(pending, "is given twice")
			}
			top.names[name] = true
			top.expect = false
			continue
		}
		f := pending
		switch {
		case top == nil:
			f = ""
		case top.array:
			f = fmt.Sprintf("%s[%d]", top.field, top.index)
			top.index++
		}
		if _, seen := order[f]; !seen {
			order[f] = len(order)
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{field: f, names: map[string]bool{}, expect: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{field: f, array: true})
			continue
		}
		if top != nil && !top.array {
			top.expect = true
		}
	}
}
