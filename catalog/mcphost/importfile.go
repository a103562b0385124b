package mcphost

import (
	"bytes"
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/sizelimit"
	"github.com/jarvisbot/jarvisbot/store"
)

// An ImportEntry is one server of an mcp.json written for another app:
// its key there, the server it becomes, or why it cannot become one.
type ImportEntry struct {
	Key    string
	Server store.MCPServer
	Err    error
}

// importLimit is the size limit of an MCP configuration written for
// another app (Claude Desktop, Claude Code, Cursor, VS Code) that
// `jarvisbot mcp import` reads. Such a file is a few KiB: anything near
// 1 MiB is a mistake, and costs an error instead of memory.
var importLimit = sizelimit.Limit{What: "an MCP configuration to import", Max: 1 << 20, Hint: "is it the right file? It lists servers under \"mcpServers\" (or \"servers\")"}

// ReadImport reads an mcp.json written for another app: the mcpServers
// object of Claude Desktop, Claude Code and Cursor, or VS Code's servers.
// The entries come sorted by key; one that cannot be read carries its
// error, so that every problem of the file is told at once.
func ReadImport(file string) ([]ImportEntry, error) {
	data, err := importLimit.ReadFile(file)
	if err != nil {
		if jarvisbot.ErrorCode(err) == jarvisbot.EINVALID {
			return nil, err
		}
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "read %s: %w", file, err)
	}
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
		Servers    map[string]json.RawMessage `json:"servers"` // VS Code
	}
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "%s is not a JSON mcp.json: %w", file, err)
	}
	entries := doc.MCPServers
	if len(entries) == 0 {
		entries = doc.Servers
	}
	if len(entries) == 0 {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "%s has no \"mcpServers\" (or \"servers\") object with servers in it", file)
	}
	out := make([]ImportEntry, 0, len(entries))
	for _, k := range slices.Sorted(maps.Keys(entries)) {
		s, err := importEntry(k, entries[k])
		out = append(out, ImportEntry{Key: k, Server: s, Err: err})
	}
	return out, nil
}

// importEntry reads one server entry of another app's mcp.json.
func importEntry(key string, raw json.RawMessage) (store.MCPServer, error) {
	var e struct {
		Type    string            `json:"type"`
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
		Cwd     string            `json:"cwd"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
		Timeout float64           `json:"timeout"` // seconds, as some apps write it
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return store.MCPServer{}, jarvisbot.Errorf(jarvisbot.EINVALID, "not a server entry: %w", err)
	}
	s := store.MCPServer{Name: importName(key), Command: e.Command, Args: e.Args, Env: e.Env, Cwd: e.Cwd, URL: e.URL, Headers: e.Headers, Enabled: true}
	switch strings.ToLower(e.Type) {
	case "":
	case "stdio":
		s.Transport = Stdio
	case "sse":
		s.Transport = SSE
	case "http", "streamable-http", "streamablehttp":
		s.Transport = StreamableHTTP
	default:
		return s, jarvisbot.Errorf(jarvisbot.EINVALID, "unknown transport %q: use stdio, http (streamable HTTP) or sse", e.Type)
	}
	if e.Timeout < 0 {
		return s, jarvisbot.Errorf(jarvisbot.EINVALID, "timeout %v is negative", e.Timeout)
	}
	s.Timeout = time.Duration(e.Timeout * float64(time.Second))
	if s.Name == "" {
		return s, jarvisbot.Errorf(jarvisbot.EINVALID, "has no letter or digit to make a server name of: rename it in the file")
	}
	return s, nil
}

var notInName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9._-]+`) }) // built when an import needs it

// importName makes another app's server key a valid jarvisbot name.
func importName(n string) string {
	n = strings.ToLower(strings.TrimSpace(n))
	n = notInName().ReplaceAllString(n, "-")
	return strings.Trim(n, "-._")
}
