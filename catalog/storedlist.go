package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
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
//
// It reads the list a tool at a time from the string the store returned
// (eachTool), rather than converting it to bytes for json.Unmarshal: that
// copy, of every list right after start, was most of what the check
// allocated.
func StoredListTakesATool(raw string) bool {
	takes := false
	err := eachTool(raw, func(t *toolHead) {
		takes = takes || t.InputSchema.takes(t.Name)
	})
	return err == nil && takes
}

// ReadStoredList decodes a stored tool list, the JSON array of
// SnapshotTools a server last listed, as json.Unmarshal would into a
// []SnapshotTool, a tool at a time from the string the store returned
// (eachTool). null is no tools.
func ReadStoredList(raw string) ([]SnapshotTool, error) {
	var tools []SnapshotTool
	err := eachTool(raw, func(t *SnapshotTool) { tools = append(tools, *t) })
	if err != nil {
		return nil, err
	}
	return tools, nil
}

// eachTool decodes the elements of the JSON array raw one by one into T
// and calls fn with each; it fails where json.Unmarshal of raw into a []T
// would, and takes null for an empty list. Decoding from a reader a value
// at a time buffers one tool, where json.Unmarshal needs the whole list
// as bytes: for the store's strings, a copy of each list.
func eachTool[T any](raw string, fn func(*T)) error {
	dec := json.NewDecoder(strings.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		_, err := dec.Token()
		if err != io.EOF {
			return errors.New("text after a null tool list")
		}
		return nil
	}
	if tok != json.Delim('[') {
		return fmt.Errorf("a tool list is a JSON array, not %v", tok)
	}
	for dec.More() {
		var t T
		if err := dec.Decode(&t); err != nil {
			return err
		}
		fn(&t)
	}
	if tok, err := dec.Token(); err != nil {
		return fmt.Errorf("a tool list that does not end: %w", err)
	} else if tok != json.Delim(']') {
		return errors.New("a tool list that does not end")
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("text after the tool list")
	}
	return nil
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

// takes is checkTool's rule for a tool named name with this schema: a
// name the catalog takes, and an object for a schema if there is one.
func (s schemaHead) takes(name string) bool {
	return validToolName(name) == nil && (!s.set || s.object)
}

func (s *schemaHead) UnmarshalJSON(b []byte) error {
	s.set = true
	s.object = bytes.HasPrefix(bytes.TrimLeft(b, " \t\r\n"), []byte("{"))
	return nil
}
