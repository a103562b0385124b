// Package clitool makes an installed command-line program a capability
// (P5): `jarvisbot cli add gh` registers cli:gh. A tool runs with an argv,
// never through a shell, so the model's words cannot become shell syntax;
// under a deadline; with only the environment the owner configured; and
// with its output capped. Its tier is ask unless the owner says otherwise:
// a command line can do anything its program can.
package clitool

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/names"
	"github.com/jarvisbot/jarvisbot/internal/procgroup"
	"github.com/jarvisbot/jarvisbot/internal/secretref"
)

// Defaults.
const (
	DefaultTimeout = 60 * time.Second
	// DefaultMaxOutput caps what one run returns to the model.
	DefaultMaxOutput = 64 << 10
	maxArgs          = 256
)

// Tool is one connected command-line program.
type Tool struct {
	Name string // "gh": the id is cli:gh
	Path string // absolute path of the program
	// Env names the variables the program gets besides PATH and HOME, with
	// values that may be ${NAME} references (resolved when it runs).
	Env     map[string]string
	Timeout time.Duration // 0 means DefaultTimeout
	// Description says what the program is for, for the model.
	Description string
}

// Resolve finds the program for a name ("gh") or a path, and returns a tool
// for it. The error says where it looked.
func Resolve(name, path string) (Tool, error) {
	if path == "" {
		path = name
	}
	if !names.Source(name) {
		return Tool{}, jarvisbot.Errorf(jarvisbot.EINVALID, "tool name %q: use 1 to 64 lowercase letters, digits, '.', '_' or '-'", name)
	}
	found, err := exec.LookPath(path)
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return Tool{}, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "program %q not found on PATH (%s): install it, or give its path with --path", path, os.Getenv("PATH"))
		}
		return Tool{}, jarvisbot.Errorf(jarvisbot.EINVALID, "program %q cannot be run: %w", path, err)
	}
	abs, err := filepath.Abs(found)
	if err != nil {
		return Tool{}, fmt.Errorf("resolve %s: %w", found, err)
	}
	return Tool{Name: name, Path: abs}, nil
}

// schema is the input of every CLI tool: the argument vector.
const schema = `{"type":"object","properties":{` +
	`"args":{"type":"array","items":{"type":"string"},"maxItems":256,"description":"the command-line arguments, one per item, exactly as the program takes them; no shell: quotes, pipes and $VARS are not interpreted"},` +
	`"stdin":{"type":"string","description":"text to give the program on standard input (optional)"}},` +
	`"required":["args"],"additionalProperties":false}`

// Capability describes the tool for the catalog.
func (t Tool) Capability() catalog.Capability {
	desc := t.Description
	if desc == "" {
		desc = fmt.Sprintf("Run the %s command-line program with the given arguments and get its output.", t.Name)
	}
	return catalog.Capability{
		ID:          "cli:" + t.Name,
		Kind:        catalog.KindCLI,
		Source:      "cli",
		Name:        t.Name,
		Description: desc + " Arguments are passed as a list, never through a shell.",
		InputSchema: json.RawMessage(schema),
		Tier:        catalog.TierAsk,
		Connected:   true,
	}
}

// Lookup resolves ${NAME} references in the environment.
type Lookup func(name string) (string, bool)

func (t Tool) environ(lookup Lookup) ([]string, error) {
	env := map[string]string{}
	for _, k := range []string{"PATH", "HOME"} {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	for k, v := range t.Env {
		v, missing := secretref.Expand(v, lookup)
		if missing != "" {
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "cli:%s: env %s refers to ${%s}, which is not set: store it with jarvisbot secrets set %s", t.Name, k, missing, missing)
		}
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out, nil
}

// Runner runs the calls of cli: capabilities for the agent runtime
// (agents.Runner) with the connected programs, by name.
type Runner struct {
	Tools  map[string]Tool // by name: "gh" for cli:gh
	Lookup Lookup          // resolves the ${NAME} references of the tools' environments
}

// Run runs one call. A program that exits non-zero answers with an error
// result that the model reads; one that is not connected is an error.
func (r Runner) Run(ctx context.Context, c catalog.Call) (catalog.Output, error) {
	t, ok := r.tool(c.Cap)
	if !ok {
		return catalog.Output{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s is not connected to the running service: add it with `jarvisbot cli add %s` and restart", c.Cap.ID, strings.TrimPrefix(c.Cap.ID, "cli:"))
	}
	res, err := t.Call(ctx, c.Args, r.Lookup, 0)
	return catalog.Output{Text: res.Text, IsError: res.ExitCode != 0}, err
}

// Timeout is the program's own deadline, which Call keeps.
func (r Runner) Timeout(c catalog.Call) time.Duration {
	t, ok := r.tool(c.Cap)
	if !ok {
		return 0
	}
	return cmp.Or(t.Timeout, DefaultTimeout)
}

func (r Runner) tool(cp *catalog.Capability) (Tool, bool) {
	name, ok := strings.CutPrefix(cp.ID, string(catalog.KindCLI)+":")
	if !ok {
		return Tool{}, false
	}
	t, ok := r.Tools[name]
	return t, ok
}

// Result is one run.
type Result struct {
	Text     string // exit status line, then stdout, then stderr, capped
	ExitCode int
	Cut      bool
}

type callArgs struct {
	Args  []string `json:"args"`
	Stdin *string  `json:"stdin"`
}

// Call runs the program with the model's arguments. A non-zero exit is a
// result, not an error: the model reads what the program said. Errors are
// for arguments that are not an argv, a deadline, or a program that cannot
// start.
func (t Tool) Call(ctx context.Context, raw json.RawMessage, lookup Lookup, maxOutput int) (Result, error) {
	var a callArgs
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return Result{}, jarvisbot.Errorf(jarvisbot.EINVALID, `cli:%s takes {"args": ["--flag", "value"]}: %w`, t.Name, err)
	}
	if len(a.Args) > maxArgs {
		return Result{}, jarvisbot.Errorf(jarvisbot.EINVALID, "cli:%s: %d arguments, at most %d", t.Name, len(a.Args), maxArgs)
	}
	for _, arg := range a.Args {
		if strings.ContainsRune(arg, 0) {
			return Result{}, jarvisbot.Errorf(jarvisbot.EINVALID, "cli:%s: an argument holds a NUL byte", t.Name)
		}
	}
	env, err := t.environ(lookup)
	if err != nil {
		return Result{}, err
	}
	limit := t.Timeout
	if limit <= 0 {
		limit = DefaultTimeout
	}
	if maxOutput <= 0 {
		maxOutput = DefaultMaxOutput
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	stdout := &capped{max: maxOutput}
	stderr := &capped{max: maxOutput / 4}
	start := time.Now()
	err = t.run(ctx, a, env, stdout, stderr)
	res := Result{}
	var ee *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return Result{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cli:%s did not finish within %s and was stopped", t.Name, limit)
	case ctx.Err() != nil:
		return Result{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cli:%s was cancelled", t.Name)
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitCode()
	case err != nil:
		return Result{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cli:%s could not run: %w", t.Name, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "exit status %d (%s)\n", res.ExitCode, time.Since(start).Round(time.Millisecond))
	b.Write(stdout.buf.Bytes())
	if stdout.cut > 0 {
		fmt.Fprintf(&b, "\n[stdout cut: %d more bytes]\n", stdout.cut)
	}
	if stderr.buf.Len() > 0 {
		b.WriteString("\n[stderr]\n")
		b.Write(stderr.buf.Bytes())
		if stderr.cut > 0 {
			fmt.Fprintf(&b, "\n[stderr cut: %d more bytes]\n", stderr.cut)
		}
	}
	res.Text, res.Cut = b.String(), stdout.cut > 0 || stderr.cut > 0
	return res, nil
}

// pipeGrace is how long the output of a finished run may stay open: only a
// process that left the run's group (setsid) can hold it that long.
const pipeGrace = time.Second

// run starts the program in a process group of its own and waits for it.
// When ctx ends, the whole group is killed; when the program exits, what
// it left running in its group is killed too: nothing a call started
// outlives it, and a child holding stdout open cannot hold the call. The
// pipes are jarvisbot's own, so that waiting for the program does not
// also wait for whoever else holds them.
func (t Tool) run(ctx context.Context, a callArgs, env []string, stdout, stderr io.Writer) error {
	cmd := exec.CommandContext(ctx, t.Path, a.Args...)
	cmd.Env = env
	procgroup.Set(cmd)
	cmd.Cancel = func() error {
		procgroup.Signal(cmd, true)
		return nil
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	var inR, inW *os.File
	if a.Stdin != nil {
		if inR, inW, err = os.Pipe(); err != nil {
			outR.Close()
			outW.Close()
			errR.Close()
			errW.Close()
			return err
		}
		cmd.Stdin = inR
	}
	err = cmd.Start()
	// The child has its own ends now (or never will).
	outW.Close()
	errW.Close()
	if inR != nil {
		inR.Close()
	}
	if err != nil {
		outR.Close()
		errR.Close()
		if inW != nil {
			inW.Close()
		}
		return err
	}
	if inW != nil {
		go func() {
			// A program that never reads its stdin ends the write when
			// the pipe is closed below; what it did with its input is
			// in its exit status and output.
			_, _ = io.WriteString(inW, *a.Stdin)
			inW.Close()
		}()
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		// The writers keep what fits and count the rest, and never fail;
		// a read ends with the program's output, or when the pipes are
		// closed below after the grace: nothing of the copy's error is news.
		done := make(chan struct{})
		go func() { _, _ = io.Copy(stderr, errR); close(done) }()
		_, _ = io.Copy(stdout, outR)
		<-done
	}()
	err = cmd.Wait()
	procgroup.Signal(cmd, true)
	select {
	case <-copied:
	case <-time.After(pipeGrace):
		outR.Close()
		errR.Close()
		<-copied
	}
	outR.Close()
	errR.Close()
	if inW != nil {
		inW.Close()
	}
	return err
}

// capped keeps the first max bytes written and counts the rest.
type capped struct {
	max int
	buf bytes.Buffer
	cut int
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.max - c.buf.Len()
	if room >= len(p) {
		return c.buf.Write(p)
	}
	if room > 0 {
		c.buf.Write(p[:room])
	}
	c.cut += len(p) - max(room, 0)
	return len(p), nil
}
