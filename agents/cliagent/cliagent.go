// Package cliagent is the Delegate that runs an agent's turn on a coding
// CLI the owner is signed in to (M5): Claude Code (`claude`) or Codex
// (`codex`). The CLI is the model and its own tool loop; jarvisbot's tools
// reach it only through the session MCP server the turn starts, so every
// call goes back through the runtime's tiers and approvals.
//
// A turn spawns the CLI headless in a process group of its own, with a
// clean environment, a closed stdin and the session server's bearer token
// never on its command line; it reads the CLI's JSON event stream, keeps
// the CLI's session id so the next turn resumes the conversation, and ends
// with the final answer. A hung or crashing CLI costs the turn: the
// deadline kills the whole group and the error carries the last lines the
// CLI wrote on stderr.
package cliagent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/internal/procgroup"
)

// The CLIs jarvisbot runs, by provider name.
const (
	ClaudeCode = "claude-code"
	Codex      = "codex"
)

// DefaultTimeout bounds a turn when Options.Timeout is not set: a CLI
// turn is a whole tool loop, not one model call.
const DefaultTimeout = 10 * time.Minute

// serverName is the session MCP server's name in the CLI's config: its
// tools reach the model as mcp__jb__TOOL.
const serverName = "jb"

// ApproveTool is the session server's tool Claude Code asks before each
// use of its own tools when Options.OwnTools is set: called with
// {tool_name, input, tool_use_id}, it answers {"behavior":"allow",
// "updatedInput":…} or {"behavior":"deny","message":…} after
// DelegateTurn.Approve.
const ApproveTool = "approve"

// Options configure a CLI delegate.
type Options struct {
	// Kind is ClaudeCode or Codex.
	Kind string
	// Command is the CLI to run: a path, or a name looked up on PATH;
	// "" is "claude" or "codex".
	Command string
	// Getenv reads jarvisbot's environment; the CLI gets only its own
	// settings from it (see childEnv). nil is os.Getenv.
	Getenv func(string) string
	// Environ lists the variables of jarvisbot's environment as
	// NAME=VALUE (only the names are used; Getenv gives the values);
	// nil is os.Environ.
	Environ func() []string
	// Timeout bounds one turn; 0 is DefaultTimeout.
	Timeout time.Duration
	// Dir is the CLI's working directory. Claude Code keeps its sessions
	// per directory, so it must stay the same from turn to turn; "" is
	// jarvisbot-cli under the user's cache directory.
	Dir    string
	Logger *slog.Logger
	// MCP starts the session MCP server for a turn (agents/session): its
	// address, the one-off bearer token, and close, called when the turn
	// ends whatever happened.
	MCP func(ctx context.Context, t agents.DelegateTurn) (url, token string, close func(), err error)
	// OwnTools lets the CLI use its own shell, file and web tools, each use
	// asked through the session server's approve tool. Only Claude Code
	// can ask: Codex's exec mode has no way to hand an approval to
	// jarvisbot, so New refuses OwnTools for it.
	OwnTools bool
	// Probes remembers what each installed CLI supports, so that it is
	// asked once per binary, not every turn; nil gives the CLI a cache of
	// its own. Share one between the CLIs a service builds.
	Probes *Probes
}

// CLI runs turns on one coding CLI. It is safe for concurrent turns: each
// has its own process, session server and temporary files.
type CLI struct {
	opt Options
}

var _ agents.Delegate = (*CLI)(nil)

// New checks opt and fills in the defaults. It does not look for the CLI:
// Version does, so that `agents show` can say what to install.
func New(opt Options) (*CLI, error) {
	switch opt.Kind {
	case ClaudeCode, Codex:
	default:
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "coding CLI %q: use %s or %s", opt.Kind, ClaudeCode, Codex)
	}
	if opt.MCP == nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "%s: no session MCP server to give the CLI jarvisbot's tools", opt.Kind)
	}
	if opt.OwnTools && opt.Kind == Codex {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "codex: its own tools cannot be offered, because codex exec cannot ask jarvisbot's approvals before using them; use claude-code for an agent with the CLI's own tools")
	}
	if opt.Command == "" {
		opt.Command = defaultCommand(opt.Kind)
	}
	if opt.Getenv == nil {
		opt.Getenv = os.Getenv
	}
	if opt.Environ == nil {
		opt.Environ = os.Environ
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.Probes == nil {
		opt.Probes = &Probes{}
	}
	if opt.Dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "%s: no working directory for the CLI (%v); set HOME or XDG_CACHE_HOME", opt.Kind, err)
		}
		opt.Dir = filepath.Join(cache, "jarvisbot-cli", opt.Kind)
	}
	return &CLI{opt: opt}, nil
}

func defaultCommand(kind string) string {
	if kind == Codex {
		return "codex"
	}
	return "claude"
}

// installHint is what the owner runs when the CLI is missing.
func installHint(kind string) string {
	if kind == Codex {
		return "npm install -g @openai/codex"
	}
	return "npm install -g @anthropic-ai/claude-code"
}

// versionTimeout bounds `CLI --version`, which reads nothing but itself.
const versionTimeout = 30 * time.Second

// Version finds the CLI and asks its version: "claude-code 2.1.3 found at
// /usr/local/bin/claude", followed by what it lacks when it is older than
// what jarvisbot uses. When it is missing or broken, the error says what
// to install.
func (c *CLI) Version(ctx context.Context) (string, error) {
	path, err := c.lookPath()
	if err != nil {
		return "", err
	}
	sup, err := c.support(ctx, path)
	if err != nil {
		return "", err
	}
	v := fmt.Sprintf("%s %s found at %s", c.opt.Kind, sup.version, path)
	if c.opt.Kind == ClaudeCode && !sup.snapshot {
		v += "; " + c.lacksSnapshot()
	}
	return v, nil
}

// TestedClaudeCode is the Claude Code release jarvisbot's tests run
// (testdata/clis.txt pins it); an older one may lack options it gives.
const TestedClaudeCode = "2.1.332"

// snapshotFlag makes a resumed Claude Code session use each turn's system
// prompt; releases older than the flag refuse it as an unknown option.
const snapshotFlag = "--system-prompt-snapshot"

// lacksSnapshot says what an older Claude Code without snapshotFlag costs,
// and what to install.
func (c *CLI) lacksSnapshot() string {
	return fmt.Sprintf("it has no %s option, so a resumed conversation keeps the system prompt of its first turn (skills and notes that changed since are not seen); update it to %s or later: %s",
		snapshotFlag, TestedClaudeCode, installHint(c.opt.Kind))
}

// support is what one installed CLI is and can do.
type support struct {
	version string // "2.1.3"
	// snapshot: Claude Code knows snapshotFlag (its --help lists it).
	snapshot bool
}

// Probes caches what each CLI binary supports, by its path and its file's
// size and time, so that an upgraded CLI is asked again. The zero value
// is ready to use; it is safe for concurrent use.
type Probes struct {
	mu   sync.Mutex
	seen map[probeKey]support
}

type probeKey struct {
	path string
	size int64
	mod  time.Time
}

// support asks the CLI at path its version and, for Claude Code, whether
// its --help lists snapshotFlag: an option is known by what the CLI says
// of itself, not by a release number guessed for it.
func (c *CLI) support(ctx context.Context, path string) (support, error) {
	key := probeKey{path: path}
	if fi, err := os.Stat(path); err == nil {
		key.size, key.mod = fi.Size(), fi.ModTime()
	}
	p := c.opt.Probes
	p.mu.Lock()
	sup, ok := p.seen[key]
	p.mu.Unlock()
	if ok {
		return sup, nil
	}
	out, err := c.output(ctx, path, "--version")
	if err != nil {
		return support{}, err
	}
	sup.version = strings.TrimSpace(out)
	// Both print a name before the number ("2.1.3 (Claude Code)",
	// "codex-cli 0.171.0"): keep the word that starts with a digit.
	for _, f := range strings.Fields(sup.version) {
		if f[0] >= '0' && f[0] <= '9' {
			sup.version = f
			break
		}
	}
	if c.opt.Kind == ClaudeCode {
		help, err := c.output(ctx, path, "--help")
		if err != nil {
			return support{}, err
		}
		sup.snapshot = strings.Contains(help, snapshotFlag+" ")
		if !sup.snapshot {
			c.opt.Logger.Warn("the claude CLI is older than jarvisbot's tested release: "+c.lacksSnapshot(), "version", sup.version, "path", path)
		}
	}
	p.mu.Lock()
	if p.seen == nil {
		p.seen = map[probeKey]support{}
	}
	p.seen[key] = sup
	p.mu.Unlock()
	return sup, nil
}

// output runs the CLI with args that only read itself (--version,
// --help) and returns what it printed.
func (c *CLI) output(ctx context.Context, path string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = c.childEnv(nil)
	procgroup.Set(cmd)
	cmd.Cancel = func() error {
		procgroup.Signal(cmd, true)
		return nil
	}
	cmd.WaitDelay = pipeGrace
	var stderr tail
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s at %s does not run (%v%s); reinstall it: %s",
			c.opt.Kind, path, err, stderr.suffix(), installHint(c.opt.Kind))
	}
	return string(out), nil
}

func (c *CLI) lookPath() (string, error) {
	path, err := c.find(c.opt.Command)
	if err == nil && !filepath.IsAbs(path) {
		path, err = filepath.Abs(path)
	}
	if err != nil {
		return "", jarvisbot.Errorf(jarvisbot.ENOTFOUND, "%s: %s is not installed (not found: %s); install it with: %s, or set provider.command to its path",
			c.opt.Kind, defaultCommand(c.opt.Kind), c.opt.Command, installHint(c.opt.Kind))
	}
	return path, nil
}

// find looks a command up on the PATH of jarvisbot's environment (Getenv),
// the PATH the CLI itself gets, not the process's; a name with a slash is
// taken as it is.
func (c *CLI) find(command string) (string, error) {
	if strings.ContainsRune(command, filepath.Separator) {
		return exec.LookPath(command)
	}
	for _, dir := range filepath.SplitList(c.opt.Getenv("PATH")) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, command)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// Turn runs one turn on the CLI: the session server up, the CLI started
// with the turn's prompt, its events read to the final answer, everything
// stopped and removed when it returns.
// Who says which CLI answers; the model is the one its own settings choose.
func (c *CLI) Who() (provider, model string) { return c.opt.Kind, "" }

func (c *CLI) Turn(ctx context.Context, t agents.DelegateTurn) (agents.DelegateResult, error) {
	path, err := c.lookPath()
	if err != nil {
		return agents.DelegateResult{}, err
	}
	if err := os.MkdirAll(c.opt.Dir, 0o700); err != nil {
		return agents.DelegateResult{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s: cannot make its working directory %s: %w", c.opt.Kind, c.opt.Dir, err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.opt.Timeout)
	defer cancel()
	url, token, closeMCP, err := c.opt.MCP(ctx, t)
	if err != nil {
		return agents.DelegateResult{}, fmt.Errorf("%s: cannot start the session's MCP server: %w", c.opt.Kind, err)
	}
	defer closeMCP()
	// What the CLI reads from files (the MCP config with the token, the
	// system prompt) lives in a folder only the owner can read, gone at
	// the end of the turn.
	tmp, err := os.MkdirTemp("", "jarvisbot-turn-")
	if err != nil {
		return agents.DelegateResult{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s: cannot make the turn's temporary folder: %w", c.opt.Kind, err)
	}
	defer func() {
		// It holds the session token: a folder left behind is worth a
		// warning, though the token dies with the session server.
		if err := os.RemoveAll(tmp); err != nil {
			c.opt.Logger.Warn("cannot remove a CLI turn's temporary folder", "cli", c.opt.Kind, "dir", tmp, "err", err)
		}
	}()

	var inv invocation
	var sup support
	if c.opt.Kind == Codex {
		inv, err = codexInvocation(t, url, token)
	} else if sup, err = c.support(ctx, path); err == nil {
		inv, err = claudeInvocation(t, url, token, tmp, c.opt.OwnTools, sup.snapshot)
	}
	if err != nil {
		return agents.DelegateResult{}, err
	}
	p := &parser{kind: c.opt.Kind, t: t, session: t.Session, log: c.opt.Logger}
	runErr := c.run(ctx, path, inv, p)
	if runErr != nil && ctx.Err() == nil && strings.Contains(p.stderr.lines(), "unknown option") {
		// An option jarvisbot gives is newer than this CLI: say which
		// release to install, not only what the CLI refused.
		return agents.DelegateResult{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%w; %s", runErr, c.tooOld(sup.version, path))
	}
	if ctx.Err() == context.DeadlineExceeded {
		return agents.DelegateResult{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s did not finish the turn within %s and was stopped%s",
			defaultCommand(c.opt.Kind), c.opt.Timeout, p.stderr.suffix())
	}
	if ctx.Err() != nil {
		return agents.DelegateResult{}, fmt.Errorf("%s: the turn was stopped: %w", c.opt.Kind, ctx.Err())
	}
	if runErr != nil {
		return agents.DelegateResult{}, runErr
	}
	return p.result()
}

// tooOld says that the CLI at path refused an option jarvisbot gives it,
// and what to install.
func (c *CLI) tooOld(version, path string) string {
	if version == "" {
		version = "(version unknown)"
	}
	if c.opt.Kind == Codex {
		return fmt.Sprintf("%s %s at %s is older than jarvisbot needs; update it: %s", c.opt.Kind, version, path, installHint(c.opt.Kind))
	}
	return fmt.Sprintf("%s %s at %s is older than jarvisbot needs; update it to %s or later: %s", c.opt.Kind, version, path, TestedClaudeCode, installHint(c.opt.Kind))
}

// invocation is one run of a CLI: its arguments and what its environment
// adds to the clean one.
type invocation struct {
	args []string
	env  map[string]string
}

// pipeGrace is how long the CLI's output may stay open after it exited:
// only a process that left its group (setsid) can hold it that long.
const pipeGrace = time.Second

// run starts the CLI in a process group of its own with stdin closed and
// feeds its stdout to p line by line. When ctx ends the whole group is
// killed; when the CLI exits, what it left running in its group is killed
// too.
func (c *CLI) run(ctx context.Context, path string, inv invocation, p *parser) error {
	cmd := exec.CommandContext(ctx, path, inv.args...)
	cmd.Env = c.childEnv(inv.env)
	cmd.Dir = c.opt.Dir
	// Codex blocks on an open stdin pipe; neither needs one.
	cmd.Stdin = nil
	cmd.Stderr = &p.stderr
	procgroup.Set(cmd)
	cmd.Cancel = func() error {
		procgroup.Signal(cmd, true)
		return nil
	}
	cmd.WaitDelay = pipeGrace
	outR, outW, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd.Stdout = outW
	err = cmd.Start()
	outW.Close() // the child has its own end now (or never will)
	if err != nil {
		outR.Close()
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s at %s cannot start: %w; reinstall it: %s", c.opt.Kind, path, err, installHint(c.opt.Kind))
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		p.read(ctx, outR)
	}()
	waitErr := cmd.Wait()
	procgroup.Signal(cmd, true)
	select {
	case <-read:
	case <-time.After(pipeGrace):
		outR.Close()
		<-read
	}
	outR.Close()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var exit *exec.ExitError
	if errors.As(waitErr, &exit) {
		// What the CLI said of its failure in its events (an API error,
		// a quota) says more than its stderr, which may be empty.
		detail := p.stderr.suffixOr(p.lastError)
		if p.failed != "" {
			detail = ": " + p.failed
		}
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s exited with %s%s", defaultCommand(c.opt.Kind), exitStatus(exit), detail)
	}
	if waitErr != nil {
		return fmt.Errorf("%s: waiting for it failed: %w", c.opt.Kind, waitErr)
	}
	return nil
}

func exitStatus(e *exec.ExitError) string {
	if code := e.ExitCode(); code >= 0 {
		return fmt.Sprintf("status %d", code)
	}
	return e.String()
}

// tail keeps the last lines a CLI wrote on stderr, for the error that
// ends a failed turn; the rest is dropped as it comes.
type tail struct {
	b []byte
}

const tailBytes = 2048

func (w *tail) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	if len(w.b) > tailBytes {
		w.b = w.b[len(w.b)-tailBytes:]
		if i := strings.IndexByte(string(w.b), '\n'); i >= 0 && i < len(w.b)-1 {
			w.b = w.b[i+1:]
		}
	}
	return len(p), nil
}

// lines returns the last lines, joined with " | ".
func (w *tail) lines() string {
	var out []string
	for _, l := range strings.Split(string(w.b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	if len(out) > 8 {
		out = out[len(out)-8:]
	}
	return strings.Join(out, " | ")
}

// suffix is ": LINES" or "".
func (w *tail) suffix() string { return w.suffixOr("") }

// suffixOr is ": LINES", or ": alt" when stderr said nothing.
func (w *tail) suffixOr(alt string) string {
	if l := w.lines(); l != "" {
		return ": " + l
	}
	if alt != "" {
		return ": " + alt
	}
	return ""
}

var _ io.Writer = (*tail)(nil)
