// Command mcptestserver is a deliberately misbehaving-on-demand MCP server
// that jarvisbot's tests build and run as a child process (stdio) or as an
// HTTP server, to exercise the MCP client side against a real peer. It is
// built on mark3labs/mcp-go's server package; nothing here speaks JSON-RPC
// by hand.
//
// Its command line is a contract with those tests; change it only together
// with them.
//
// Transports (exactly one is chosen):
//
//	(default)        MCP over stdin/stdout.
//	-http ADDR       streamable HTTP at path /mcp (ADDR like 127.0.0.1:0).
//	                 Once listening it prints exactly one line
//	                 MCPTEST_URL=http://HOST:PORT/mcp to stdout, then serves
//	                 until SIGTERM or SIGINT, which shut it down gracefully
//	                 (exit status 0; in-flight requests get one second, then
//	                 their connections are dropped). An unspecified listen
//	                 host (0.0.0.0, [::]) is reported as 127.0.0.1.
//	-http ADDR -sse  the legacy SSE transport instead: stream at /sse,
//	                 messages at /message; prints MCPTEST_URL=http://HOST:PORT/sse.
//	                 /mcp answers 404, so a client that tries streamable HTTP
//	                 first falls back to SSE.
//	-http ADDR -html no MCP at all: every request gets status 200 and
//	                 <html><body>Welcome</body></html> as text/html; prints
//	                 MCPTEST_URL=http://HOST:PORT/mcp.
//
// Server identity:
//
//	-name NAME          server name reported to clients (default "mcptest").
//	-instructions TEXT  server instructions reported to clients.
//
// Tool lists:
//
//	-extra-tools N  add N generated tools tool_001, tool_002, … each described
//	                "Generated test tool number N." (default 0).
//	-tools-file F   serve the tools of F instead of the built-in ones: a
//	                JSON array in the tools/list shape (a real server's
//	                list, say), so the server stands in for that server;
//	                each tool keeps its name, title, description, input
//	                schema and annotations and answers "NAME called". Names
//	                are served as they are, however bad: empty, with '/' or
//	                control characters, over-long; a name the file lists
//	                again is listed again (after the others, on the last
//	                page). A file that cannot be read or parsed exits with
//	                status 2.
//	-page-size K    tools/list returns at most K tools per page with a
//	                nextCursor (default 0: no pagination).
//
// Credentials:
//
//	-key KEY            a credential the server expects. Over HTTP (either
//	                    transport) every request must carry it, or gets 401:
//	                    as "Authorization: Bearer KEY", as the password of
//	                    "Authorization: Basic …", as an X-Api-Key header, or
//	                    as the query parameter api_key or token. With -key
//	                    the server also has a tool key {} that returns KEY,
//	                    so a test can see the value arrived (over stdio too,
//	                    where nothing else checks it).
//	-dsn DSN            a connection string given on the command line
//	                    ("postgresql://me:pw@db/app"); with -dsn the server
//	                    has a tool dsn {} that returns it as it arrived.
//
// Faults:
//
//	-garbage            write three lines "this is not json" to stdout before
//	                    serving, like a server printing a banner. (In HTTP
//	                    modes they come before the MCPTEST_URL line.)
//	-exit-at-start CODE write "mcptest: fatal: cannot open database /nonexistent"
//	                    to stderr and exit with CODE before serving anything.
//	-hang-initialize    accept the connection but never answer the handshake:
//	                    initialize and its 2026-07-28 replacement
//	                    server/discover both block forever. Ping still works.
//	-crash-after N      when the Nth tools/call arrives, write
//	                    "mcptest: crashing after N calls" to stderr and exit
//	                    with status 3.
//	-print-env NAME     write "mcptest: NAME=VALUE" (that environment
//	                    variable's value) to stderr before anything else, -exit-at-start
//	                    included, like a server that logs its configuration
//	                    and with it a secret it was given.
//
// Tools, always present (argument types in braces):
//
//	echo {text string, required}  returns text. readOnlyHint true.
//	add {a number, b number}      returns the sum, e.g. "5". readOnlyHint true.
//	sleep {ms integer}            sleeps ms milliseconds and returns
//	                              "slept N ms"; fails early when the request
//	                              is cancelled.
//	hang {}                       writes "mcptest: hanging" to stderr, so a
//	                              test knows the call is in the server, then
//	                              blocks forever, ignoring cancellation.
//	fail {}                       a result with isError true and text
//	                              "the test tool failed on purpose".
//	crash {}                      writes "mcptest: crash tool called" to
//	                              stderr and exits with status 3.
//	big {bytes integer}           returns that many 'x' characters (at most
//	                              64 MiB).
//	env {name string}             the value of that environment variable in
//	                              the server process, or "(unset)".
//	add_tool {name string}        registers a tool of that name (it answers
//	                              "NAME called"), returns "added NAME", and
//	                              sends notifications/tools/list_changed to
//	                              every connected client (on 2026-07-28
//	                              streamable HTTP only to clients listening
//	                              through subscriptions/listen). Names already
//	                              taken are refused with a tool error.
//	delete_everything {}          returns "deleted nothing (test)".
//	                              destructiveHint true, readOnlyHint false.
//	freeze {ms integer}           the whole server stops answering, ping
//	                              included, for ms milliseconds (0 or
//	                              absent: until the process ends), like a
//	                              deadlocked server: on stdio it reads no
//	                              more requests, over HTTP every request
//	                              waits. Once frozen it writes
//	                              "mcptest: frozen" to stderr. The call
//	                              itself answers "thawed" when the freeze
//	                              ends.
//
// Every other tool is marked readOnlyHint false, destructiveHint false,
// openWorldHint false, so only delete_everything looks dangerous.
//
// Generated tools (-extra-tools, add_tool) take an optional string "input"
// and answer "NAME called".
//
// On stdio up to 16 tool calls run at once. The server stops when stdin
// closes or on SIGTERM/SIGINT; it gives in-flight calls half a second and
// then exits (status 0) even if one of them (hang) never will, so a client
// closing its end is never left waiting.
//
// Command-line mistakes (-sse or -html without -http, both together, stray
// arguments, unknown flags) exit with status 2 and a message on stderr.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mark3labs/mcp-go/server"
)

// exitFunc ends the process; crash paths call it so that a test of this
// package could substitute it, and main passes os.Exit.
type exitFunc func(code int)

// options is the parsed command line.
type options struct {
	httpAddr       string
	sse            bool
	html           bool
	name           string
	instructions   string
	extraTools     int
	toolsFile      []server.ServerTool
	pageSize       int
	garbage        bool
	exitAtStart    int
	hangInitialize bool
	crashAfter     int
	printEnv       string
	key            string
	dsn            string
}

// errUsage reports a command line the flag package accepted but that makes
// no sense; main exits 2 for it, as flag does for its own errors.
var errUsage = errors.New("invalid command line")

func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("mcptestserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.httpAddr, "http", "", "serve over HTTP on `ADDR` (e.g. 127.0.0.1:0) instead of stdio")
	fs.BoolVar(&o.sse, "sse", false, "with -http: serve the legacy SSE transport at /sse")
	fs.BoolVar(&o.html, "html", false, "with -http: answer every request with an HTML page, not MCP")
	fs.StringVar(&o.name, "name", "mcptest", "server `NAME` reported in initialize")
	fs.StringVar(&o.instructions, "instructions", "", "server instructions `TEXT`")
	fs.IntVar(&o.extraTools, "extra-tools", 0, "add `N` generated tools tool_001…")
	toolsFile := fs.String("tools-file", "", "serve the tools in `FILE` (a JSON array in the tools/list shape) instead of the built-in ones")
	fs.IntVar(&o.pageSize, "page-size", 0, "tools/list page size `K` (0: no pagination)")
	fs.BoolVar(&o.garbage, "garbage", false, "print non-JSON lines to stdout before serving")
	fs.IntVar(&o.exitAtStart, "exit-at-start", -1, "print a fatal error and exit with `CODE` before serving")
	fs.BoolVar(&o.hangInitialize, "hang-initialize", false, "never answer initialize or server/discover")
	fs.IntVar(&o.crashAfter, "crash-after", 0, "exit with status 3 when the `N`th tools/call arrives (0: never)")
	fs.StringVar(&o.printEnv, "print-env", "", "write the environment variable `NAME` and its value to stderr at start")
	fs.StringVar(&o.key, "key", "", "require the credential `KEY` on every HTTP request; the tool key returns it")
	fs.StringVar(&o.dsn, "dsn", "", "a connection string `DSN`; the tool dsn returns it")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("%w: unexpected argument %q; all settings are flags", errUsage, fs.Arg(0))
	case (o.sse || o.html) && o.httpAddr == "":
		return o, fmt.Errorf("%w: -sse and -html need -http ADDR", errUsage)
	case o.sse && o.html:
		return o, fmt.Errorf("%w: choose one of -sse and -html", errUsage)
	case o.extraTools < 0 || o.pageSize < 0 || o.crashAfter < 0:
		return o, fmt.Errorf("%w: -extra-tools, -page-size and -crash-after must not be negative", errUsage)
	}
	if *toolsFile != "" {
		tools, err := readTools(*toolsFile)
		if err != nil {
			return o, fmt.Errorf("%w: -tools-file: %w", errUsage, err)
		}
		o.toolsFile = tools
	}
	return o, nil
}

func main() {
	o, err := parseOptions(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		if errors.Is(err, errUsage) {
			fmt.Fprintf(os.Stderr, "mcptest: %v\n", err)
		}
		os.Exit(2)
	}
	if o.printEnv != "" {
		fmt.Fprintf(os.Stderr, "mcptest: %s=%s\n", o.printEnv, os.Getenv(o.printEnv))
	}
	if o.exitAtStart >= 0 {
		fmt.Fprintln(os.Stderr, "mcptest: fatal: cannot open database /nonexistent")
		os.Exit(o.exitAtStart)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, o, os.Stdin, os.Stdout, os.Stderr, os.Exit); err != nil {
		fmt.Fprintf(os.Stderr, "mcptest: %v\n", err)
		stop()
		os.Exit(1)
	}
}

// run serves until ctx ends (a signal) or, on stdio, until stdin closes.
func run(ctx context.Context, o options, stdin io.Reader, stdout, stderr io.Writer, exit exitFunc) error {
	if o.garbage {
		for range 3 {
			fmt.Fprintln(stdout, "this is not json")
		}
	}
	if o.html {
		return serveHTML(ctx, o.httpAddr, stdout)
	}
	srv := newTestServer(o, stderr, exit)
	switch {
	case o.sse:
		return serveSSE(ctx, srv, o.httpAddr, o.key, stdout)
	case o.httpAddr != "":
		return serveStreamable(ctx, srv, o.httpAddr, o.key, stdout)
	default:
		return serveStdio(ctx, srv, stdin, stdout, stderr)
	}
}
