// Package mcphost connects jarvisbot to MCP servers (M1-M3): it starts
// stdio servers as child processes with a clean environment, talks
// streamable HTTP (falling back to SSE) to servers at a web address, lists
// every page of their tools, keeps one live session per enabled server,
// restarts crashed ones with backoff, and calls tools under a deadline.
//
// All protocol work is mcp-go's (github.com/mark3labs/mcp-go); this package
// adds what a long-running assistant needs around it: readable errors (the
// command that was not found, the exit code and last stderr lines, the HTTP
// status and content type), supervision, and keeping the catalog in step
// with which servers are up (a server that is down has no tools).
package mcphost

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/names"
	"github.com/jarvisbot/jarvisbot/internal/secretref"
)

// Transports a server can speak.
const (
	Stdio          = "stdio"
	StreamableHTTP = "streamable-http"
	SSE            = "sse"
)

// Defaults.
const (
	DefaultCallTimeout = 30 * time.Second
	DefaultInitTimeout = 15 * time.Second
	// DefaultPingTimeout bounds a health ping: a live server answers one
	// in milliseconds, whatever its tools are doing.
	DefaultPingTimeout = 5 * time.Second
	// DefaultMaxResult caps the text of one tool result handed to the model.
	DefaultMaxResult = 64 << 10
)

// Server is one MCP server the owner added.
type Server struct {
	Name      string
	Transport string // Stdio, StreamableHTTP or SSE; "" picks from Command or URL
	Command   string
	Args      []string // an argument may hold ${NAME} references
	// Env is the child's whole environment besides PATH and HOME: nothing
	// else of jarvisbot's environment reaches it. A value may be a
	// reference, "${NAME}", resolved when the server starts.
	Env map[string]string
	Cwd string
	// URL may hold ${NAME} references (an api_key query parameter, say),
	// resolved only for the connection: messages quote it unresolved.
	URL     string
	Headers map[string]string // values may hold ${NAME} references
	// Timeout bounds every tool call; 0 means DefaultCallTimeout.
	Timeout time.Duration
	Trusted bool   // its annotations may lower tiers
	Plugin  string // the store plugin it came with, or ""
	// Client, when set, is the HTTP client of this server: a signed-in
	// plugin's client adds its Authorization header. Not stored.
	Client *http.Client
}

// Check reports, as an EINVALID error, what is wrong with the server's
// settings, and fills in the transport when it follows from them.
func (s *Server) Check() error {
	if !names.Source(s.Name) {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "server name %q: use 1 to 64 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit", s.Name)
	}
	if s.Transport == "" {
		switch {
		case s.Command != "":
			s.Transport = Stdio
		case s.URL != "":
			s.Transport = StreamableHTTP
		}
	}
	switch s.Transport {
	case Stdio:
		if strings.TrimSpace(s.Command) == "" {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "server %s: a stdio server needs a command", s.Name)
		}
		if s.URL != "" {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "server %s: give a command or a URL, not both", s.Name)
		}
	case StreamableHTTP, SSE:
		// A reference may stand for the host ("https://${HA_HOST}/api/mcp"),
		// known only when the server is reached.
		u, err := url.Parse(secretref.Shape(s.URL))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "server %s: URL %q is not an http(s) address", s.Name, s.URL)
		}
		if u.User != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "server %s: put credentials in a header with a ${NAME} reference, not in the URL", s.Name)
		}
	case "":
		return jarvisbot.Errorf(jarvisbot.EINVALID, "server %s: give a command (stdio) or a URL (streamable HTTP or SSE)", s.Name)
	default:
		return jarvisbot.Errorf(jarvisbot.EINVALID, "server %s: unknown transport %q: use stdio, streamable-http or sse", s.Name, s.Transport)
	}
	if s.Timeout < 0 {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "server %s: timeout %s is negative", s.Name, s.Timeout)
	}
	return nil
}

// callTimeout is the deadline of one tool call.
func (s *Server) callTimeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return DefaultCallTimeout
}

// Lookup resolves ${NAME} references: from the keyring, then the
// environment, as the caller decides. It returns false for an unknown name.
type Lookup func(name string) (string, bool)

// expand replaces every ${NAME} in v. The error names the missing
// reference, never a value.
func expand(v, what string, lookup Lookup) (string, error) {
	out, missing := secretref.Expand(v, lookup)
	if missing != "" {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "%s refers to ${%s}, which is not set: store it with jarvisbot secrets set %s", what, missing, missing)
	}
	return out, nil
}

// childEnv is the environment of a stdio server: PATH and HOME (so that
// node, npx or uvx can be found and cache), and what the config names.
// What references resolve to is recorded in secrets, for error messages.
func childEnv(s *Server, lookup Lookup, secrets *redactor) ([]string, error) {
	lookup = secrets.recording(lookup)
	env := map[string]string{}
	for _, k := range []string{"PATH", "HOME"} {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	for k, v := range s.Env {
		val, err := expand(v, fmt.Sprintf("server %s: env %s", s.Name, k), lookup)
		if err != nil {
			return nil, err
		}
		if val != v { // it held a reference: all of it is secret
			secrets.addWhole(val, "env "+k)
		}
		env[k] = val
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out, nil
}

// args resolves the references in the server's arguments; what they
// resolve to is recorded in secrets.
func args(s *Server, lookup Lookup, secrets *redactor) ([]string, error) {
	lookup = secrets.recording(lookup)
	out := make([]string, len(s.Args))
	for i, a := range s.Args {
		val, err := expand(a, fmt.Sprintf("server %s: argument %d", s.Name, i+1), lookup)
		if err != nil {
			return nil, err
		}
		out[i] = val
	}
	return out, nil
}

// headers resolves the server's header references. Every header value
// is recorded in secrets: headers are where credentials travel.
func headers(s *Server, lookup Lookup, secrets *redactor) (map[string]string, error) {
	lookup = secrets.recording(lookup)
	out := make(map[string]string, len(s.Headers))
	for k, v := range s.Headers {
		val, err := expand(v, fmt.Sprintf("server %s: header %s", s.Name, k), lookup)
		if err != nil {
			return nil, err
		}
		secrets.addWhole(val, "header "+k)
		out[k] = val
	}
	return out, nil
}
