package catalog

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// StoredListTakesATool reports whether a stored tool list (the JSON array
// of SnapshotTools a server last listed) holds a tool the catalog would
// take: it decodes, and one of its tools passes AcceptTools. It decides as
// decoding the list into SnapshotTools and accepting them would, but keeps
// nothing and copies no description or schema: serve asks it of every
// server it leaves idle right after start, and decoding the lists there
// kept their tools on the heap (and made a megabyte of garbage) in a
// process that may not see a message for hours. The catalog decodes a
// list when its tools are first needed (SetStoredServer).
func StoredListTakesATool(raw []byte) bool {
	var tools []toolHead
	if json.Unmarshal(raw, &tools) != nil {
		return false
	}
	for _, t := range tools {
		if validToolName(t.Name) == nil && (!t.InputSchema.set || t.InputSchema.object) {
			return true
		}
	}
	return false
}

// toolHead is a SnapshotTool as StoredListTakesATool reads it: every field
// SnapshotTool decodes, of a type that fails where SnapshotTool's would,
// so that a list that does not decode does not decode here either; the
// text is checked, not kept, and of the schema only whether one was given
// and is an object.
type toolHead struct {
	Name        string       `json:"name"`
	Title       checkedText  `json:"title"`
	Description checkedText  `json:"description"`
	InputSchema schemaHead   `json:"inputSchema"`
	Annotations *Annotations `json:"annotations"`
}

// checkedText takes what a string field takes: a JSON string or null.
type checkedText struct{}

func (*checkedText) UnmarshalJSON(b []byte) error {
	if b[0] == '"' || string(b) == "null" {
		return nil
	}
	return &json.UnmarshalTypeError{Value: "non-string", Type: reflect.TypeFor[string]()}
}

// schemaHead is what AcceptTools asks of an input schema: whether the tool
// gave one (a json.RawMessage keeps even null), and whether it is a JSON
// object. The decoder has checked that it is valid JSON.
type schemaHead struct{ set, object bool }

func (s *schemaHead) UnmarshalJSON(b []byte) error {
	s.set = true
	s.object = bytes.HasPrefix(bytes.TrimLeft(b, " \t\r\n"), []byte("{"))
	return nil
}
