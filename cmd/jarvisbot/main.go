// Command jarvisbot is the personal assistant service and its command line.
// main only wires packages together: every behaviour lives in a package
// named for it (catalog, store, secrets, config, builtin/...), and each
// subcommand here parses flags, builds what it needs and reports errors.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents/cliagent"
	"github.com/jarvisbot/jarvisbot/app"
)

// cli is what every subcommand gets: the service's environment and the
// streams it talks on, passed in so tests run commands in-process without
// touching the real ones.
type cli struct {
	app.Env
	stdin  io.Reader
	stdout io.Writer
}

type command struct {
	summary string
	run     func(ctx context.Context, a *cli, args []string) error
}

func commands() map[string]command {
	return map[string]command{
		"init":      {"write a commented config file and create the data directory", cmdInit},
		"route":     {"explain which tools an agent would be offered for a message", cmdRoute},
		"eval":      {"evaluate the MCP gate on a labelled request set, or replay how it learns your words", cmdEval},
		"catalog":   {"show or export the catalog", cmdCatalog},
		"serve":     {"run jarvisbot: Telegram, Discord, or the console when no bot token is set (the default)", cmdServe},
		"schedule":  {"scheduled skills: list (next and last run), run NAME now, pause, resume", cmdSchedule},
		"secrets":   {"store secrets in the keyring (set NAME reads stdin)", cmdSecrets},
		"wiki":      {"read, search and write the Markdown wiki", cmdWiki},
		"memory":    {"search everything said in every chat and the wiki: memory search WORDS", cmdMemory},
		"agents":    {"add, list, show, edit and remove agents; focus comes from the description", cmdAgents},
		"approvals": {"approval requests waiting, the tools approved always, and revoking them", cmdApprovals},
		"activity":  {"the activity board: monitor-tier and approved tool calls, newest first", cmdActivity},
		"usage":     {"what the model calls cost: tokens, cost and the gate's saving by agent, model, day or source", cmdUsage},
		"chat":      {"talk to an agent in the terminal (the console channel); -m MESSAGE answers one", cmdChat},
		"cli":       {"connect command-line programs as tools (cli add gh), list, remove, run", cmdCLI},
		"mcp":       {"add, list, show, switch, remove and import MCP servers", cmdMCP},
		"pause":     {"pause every agent until jarvisbot resume (turns in progress finish; messages wait)", cmdPause(true)},
		"resume":    {"lift a pause, whoever set it (the owner, or an app's pause_all)", cmdPause(false)},
		"apps":      {"keys for apps that use jarvisbot over MCP: add NAME (prints the key once), list, revoke, config", cmdApps},
		"skills":    {"list, show, switch, install (from any app), promote and remove skills", cmdSkills},
		"web":       {"print a one-time sign-in link to the dashboard that serve serves", cmdWeb},
		"plugins":   {"the plugin store: list, show, install (with sign-in), signin, remove; validate DIR", cmdPlugins},

		// For operators (issue 20).
		"healthcheck": {"exit 0 when serve answers /healthz (--ready: /readyz) on the web listener, else 1; for a container's HEALTHCHECK", cmdHealthcheck},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal asks for an orderly stop (serve lets answers in
	// progress finish); a second one ends the process at once.
	context.AfterFunc(ctx, stop)
	code := run(ctx, os.Args[1:], &cli{stdin: os.Stdin, stdout: os.Stdout, Env: app.Env{Stderr: os.Stderr, Getenv: os.Getenv, Environ: os.Environ, CLIProbes: &cliagent.Probes{}}})
	stop()
	os.Exit(code)
}

// run executes one command line and returns the process exit status:
// 0 success, 2 usage error, 1 anything else.
func run(ctx context.Context, args []string, a *cli) int {
	if len(args) == 0 {
		args = []string{"serve"} // jarvisbot alone is jarvisbot serve
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(a.stdout)
		return 0
	}
	cmd, ok := commands()[args[0]]
	if !ok {
		fmt.Fprintf(a.Stderr, "jarvisbot: unknown command %q\n\n", args[0])
		usage(a.Stderr)
		return 2
	}
	err := cmd.run(ctx, a, args[1:])
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	}
	fmt.Fprintf(a.Stderr, "jarvisbot %s: %v\n", args[0], err)
	if jarvisbot.ErrorCode(err) == jarvisbot.EINVALID {
		return 2
	}
	return 1
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: jarvisbot COMMAND [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	cmds := commands()
	names := make([]string, 0, len(cmds))
	width := 0
	for n := range cmds {
		names = append(names, n)
		width = max(width, len(n))
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-*s %s\n", width, n, cmds[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'jarvisbot COMMAND -h' for a command's flags.")
}

// newFlagSet returns a flag set that reports to the app's stderr and whose
// parse errors become usage errors (exit 2) instead of exiting the process.
func newFlagSet(a *cli, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(a.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(a.Stderr, "usage: jarvisbot %s\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// splitCommand cuts args at the first "--": what follows is another
// program's command line, verbatim (its flags are not ours).
func splitCommand(args []string) (ours, command []string) {
	for i, s := range args {
		if s == "--" {
			return args[:i], args[i+1:]
		}
	}
	return args, nil
}

// parseFlags parses args, allowing flags after positional arguments
// ("route MESSAGE --json"), which is how people type.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
		if len(args) == 0 || !strings.HasPrefix(args[0], "-") || args[0] == "-" {
			// Keep consuming positionals until the next flag.
			for len(args) > 0 && (!strings.HasPrefix(args[0], "-") || args[0] == "-") {
				pos = append(pos, args[0])
				args = args[1:]
			}
			if len(args) == 0 {
				return pos, nil
			}
		}
	}
}
