package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxToolName is the longest tool name the catalog takes, in bytes (the
// MCP specification's own limit).
const MaxToolName = 128

// LeftOut is a tool a server listed that the catalog cannot hold, and why.
// A server is free to list anything; one such tool must cost only itself.
type LeftOut struct {
	Server string
	Tool   string // as listed; print it with String, which quotes it safely
	Why    string
}

// String is a warning fit for a log or a terminal: the tool name is quoted
// with its control characters escaped and cut to a readable length.
func (l LeftOut) String() string {
	return fmt.Sprintf("server %s: tool %s left out: %s", l.Server, quoteName(l.Tool), l.Why)
}

// AcceptTools splits a server's tool list into the tools the catalog can
// hold, in their order, and the ones it leaves out. This is the one rule
// for every way tools arrive (a live tools/list, a stored list, a
// snapshot): a name becomes part of a capability id (mcp:SERVER/TOOL) and
// reaches the model, so it must be non-empty, at most MaxToolName bytes,
// without '/', control or invisible formatting characters, and unique on
// its server (the first listing wins); an input schema, when given, must
// be a JSON object, as every model provider requires.
func AcceptTools(server string, tools []SnapshotTool) (kept []SnapshotTool, left []LeftOut) {
	kept = make([]SnapshotTool, 0, len(tools))
	seen := make(map[string]bool, len(tools))
	for _, t := range tools {
		why := ""
		if err := checkTool(t); err != nil {
			why = err.Error()
		} else if seen[t.Name] {
			why = "the server lists this name more than once; the first listing is kept"
		}
		if why != "" {
			left = append(left, LeftOut{Server: server, Tool: t.Name, Why: why})
			continue
		}
		seen[t.Name] = true
		kept = append(kept, t)
	}
	return kept, left
}

// checkTool reports what keeps one tool out of the catalog.
func checkTool(t SnapshotTool) error {
	if err := validToolName(t.Name); err != nil {
		return err
	}
	if len(t.InputSchema) > 0 && !isObject(t.InputSchema) {
		return fmt.Errorf("its inputSchema is not a JSON object")
	}
	return nil
}

// isObject reports valid JSON that is an object, without decoding it: every
// tool of every list is checked at each start.
func isObject(raw []byte) bool {
	rest := bytes.TrimLeft(raw, " \t\r\n")
	return len(rest) > 0 && rest[0] == '{' && json.Valid(raw)
}

func validToolName(name string) error {
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("tool name is empty")
	}
	if len(name) > MaxToolName {
		return fmt.Errorf("tool name is longer than %d bytes", MaxToolName)
	}
	if !utf8.ValidString(name) {
		return fmt.Errorf("tool name is not valid UTF-8")
	}
	for _, r := range name {
		// Format characters (bidi overrides, zero-width marks) would let a
		// name read as another in a consent view or a log.
		if r == '/' || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return fmt.Errorf("tool name holds a control or formatting character or '/'")
		}
	}
	return nil
}

// quoteName quotes a name from outside for a message: escaped, and cut so
// that a name of a megabyte cannot flood a log.
func quoteName(name string) string {
	const show = 64
	if len(name) <= show {
		return strconv.Quote(name)
	}
	cut := show
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return strconv.Quote(name[:cut]) + fmt.Sprintf("… (%d bytes)", len(name))
}
