package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/sizelimit"
)

// SnapshotFormat is the format tag of catalog snapshots: MCP servers with
// their tools in the tools/list shape. `route --catalog` reads it and
// `catalog export` writes it.
const SnapshotFormat = "jarvisbot-catalog-snapshot/1"

// Limits on a snapshot, so a hostile or broken file costs an error, not the
// process's memory.
const (
	MaxSnapshotBytes = 64 << 20
	MaxServerTools   = 5000
)

// Snapshot is the file form of a set of MCP servers and their tools.
type Snapshot struct {
	Format     string           `json:"format"`
	About      string           `json:"about,omitempty"`
	MCPServers []SnapshotServer `json:"mcp_servers"`
}

// SnapshotServer is one MCP server in a snapshot.
type SnapshotServer struct {
	Name         string         `json:"name"`
	Title        string         `json:"title,omitempty"`
	Plugin       string         `json:"plugin,omitempty"`
	Aliases      []string       `json:"aliases,omitempty"`
	Card         []string       `json:"card,omitempty"`
	Instructions string         `json:"instructions,omitempty"`
	Trusted      bool           `json:"trusted,omitempty"`
	Transport    string         `json:"transport,omitempty"`
	URL          string         `json:"url,omitempty"`
	Command      string         `json:"command,omitempty"`
	Package      string         `json:"package,omitempty"`
	Tools        []SnapshotTool `json:"tools"`
}

// SnapshotTool is a tool as an MCP server lists it. Fields the catalog does
// not use are kept in Extra so that an export writes them back.
type SnapshotTool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	Annotations *Annotations    `json:"annotations,omitempty"`
}

// Annotations are the MCP tool hints the catalog reads for tiers (C2).
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ReadSnapshot parses and validates a snapshot. Every problem is reported
// with where it is ("mcp_servers[1] (notebooklm-mcp) tools[4]: ..."), and
// the error code is EINVALID.
func ReadSnapshot(r io.Reader, name string) (*Snapshot, error) {
	limit := sizelimit.Limit{What: "a catalog snapshot", Max: MaxSnapshotBytes}
	data, err := limit.ReadAll(r, "catalog snapshot "+name)
	if jarvisbot.ErrorCode(err) == jarvisbot.EINTERNAL {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "read catalog snapshot %s: %w", name, err)
	}
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(data) {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "catalog snapshot %s is not valid UTF-8 JSON", name)
	}
	var s Snapshot
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&s); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "catalog snapshot %s is not valid: %s", name, describeJSONError(data, err))
	}
	if dec.More() {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "catalog snapshot %s has data after its JSON object", name)
	}
	if err := s.validate(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "catalog snapshot %s: %w", name, err)
	}
	return &s, nil
}

// describeJSONError turns a decoder error into line:column words.
func describeJSONError(data []byte, err error) string {
	var off int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
		if e.Field != "" {
			return fmt.Sprintf("field %q should be %s, not JSON %s (line %d)", e.Field, e.Type, e.Value, lineOf(data, off))
		}
	}
	if off >= 0 {
		return fmt.Sprintf("%v (line %d)", err, lineOf(data, off))
	}
	return err.Error()
}

func lineOf(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

func (s *Snapshot) validate() error {
	if s.Format == "" {
		return fmt.Errorf(`missing "format": want %q`, SnapshotFormat)
	}
	if s.Format != SnapshotFormat {
		return fmt.Errorf("format %q is not supported: want %q", s.Format, SnapshotFormat)
	}
	seen := map[string]bool{}
	for i := range s.MCPServers {
		srv := &s.MCPServers[i]
		where := fmt.Sprintf("mcp_servers[%d]", i)
		if err := ValidServerName(srv.Name); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		where += " (" + srv.Name + ")"
		if seen[srv.Name] {
			return fmt.Errorf("%s: server listed twice", where)
		}
		seen[srv.Name] = true
		if len(srv.Tools) > MaxServerTools {
			return fmt.Errorf("%s: %d tools, more than the %d a server may bring", where, len(srv.Tools), MaxServerTools)
		}
		// A file the owner hands over is checked strictly, with the place
		// of each problem, so that it can be fixed; tools that arrive from
		// a server are filtered by AcceptTools instead.
		tools := map[string]bool{}
		for j := range srv.Tools {
			t := &srv.Tools[j]
			tw := fmt.Sprintf("%s tools[%d] (%s)", where, j, quoteName(t.Name))
			if err := checkTool(*t); err != nil {
				return fmt.Errorf("%s: %w", tw, err)
			}
			if tools[t.Name] {
				return fmt.Errorf("%s: tool listed twice", tw)
			}
			tools[t.Name] = true
		}
	}
	return nil
}

// ValidServerName checks an MCP server id: it becomes part of capability
// ids (mcp:SERVER/TOOL), so it is kept to letters, digits, '.', '-', '_'.
func ValidServerName(name string) error {
	if name == "" {
		return fmt.Errorf("server name is empty")
	}
	if len(name) > 64 {
		return fmt.Errorf("server name %q is longer than 64 characters", name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("server name %q may only hold letters, digits, '.', '-' and '_'", name)
		}
	}
	return nil
}

// WriteSnapshot writes s as indented JSON.
func WriteSnapshot(w io.Writer, s *Snapshot) error {
	if s.Format == "" {
		s.Format = SnapshotFormat
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(s)
}

// defaultSchema is what a tool without an inputSchema takes: no arguments.
var defaultSchema = json.RawMessage(`{"type":"object"}`)

// toolTier derives a tool's tier from its annotations (C2): monitor by
// default; a destructive hint raises it to ask; only a trusted server's
// read-only hint may lower it to safe.
func toolTier(a *Annotations, trusted bool) Tier {
	if a == nil {
		return TierMonitor
	}
	if a.DestructiveHint != nil && *a.DestructiveHint && (a.ReadOnlyHint == nil || !*a.ReadOnlyHint) {
		return TierAsk
	}
	if trusted && a.ReadOnlyHint != nil && *a.ReadOnlyHint {
		return TierSafe
	}
	return TierMonitor
}

// CompactSchema returns raw in compact form: the model gets the same
// meaning in fewer bytes, and identical bytes from turn to turn. A schema
// that is compact already, as one on a stdio server's single line usually
// is, is returned itself rather than copied: whoever holds a tool list and
// the catalog built from it then share one copy of each schema.
func CompactSchema(raw json.RawMessage) (json.RawMessage, error) {
	if !json.Valid(raw) {
		var b bytes.Buffer
		return nil, json.Compact(&b, raw) // its error says where
	}
	return compactValid(raw), nil
}

// compactValid is CompactSchema on valid JSON: raw itself when it is
// compact, checked without a copy, as most schemas are.
func compactValid(raw json.RawMessage) json.RawMessage {
	if !spaced(raw) {
		return raw
	}
	var b bytes.Buffer
	b.Grow(len(raw)) // compact is never longer: no slack kept per tool
	if err := json.Compact(&b, raw); err != nil {
		return raw // not reached: raw is valid
	}
	return b.Bytes()
}

// spaced reports white space outside the strings of valid JSON: what
// json.Compact would remove.
func spaced(raw []byte) bool { return compactLen(raw) < len(raw) }

// compactLen is the length of valid JSON once json.Compact has removed
// the white space outside its strings.
func compactLen(raw []byte) int {
	n := 0
	in, esc := false, false
	for _, c := range raw {
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case !in && isJSONSpace(c):
			continue
		}
		n++
	}
	return n
}
