package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
)

const cliUsage = `cli add NAME [--path PROGRAM] [--env K=V]... [--timeout 60s] [--describe "what it is for"]
       jarvisbot cli list | remove NAME | run NAME -- ARGS...`

// cliFlags are the flags of `jarvisbot cli add`.
type cliFlags struct {
	path, describe *string
	env            listFlag
	timeout        *time.Duration
}

// cmdCLI: connected command-line tools (P5).
func cmdCLI(ctx context.Context, a *cli, args []string) error {
	args, argv := splitCommand(args)
	fs := newFlagSet(a, "cli", cliUsage)
	var f cliFlags
	f.path = fs.String("path", "", "add: the program's path, when it is not NAME on PATH")
	fs.Var(&f.env, "env", "add: an environment variable K=V the program gets (V may be ${SECRET}); repeatable")
	f.timeout = fs.Duration("timeout", 0, "add: deadline of one run (default 60s)")
	f.describe = fs.String("describe", "", "add: what the program is for, in a sentence, for the model")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fs.Usage()
		return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s", cliUsage)
	}
	in, err := a.OpenInstallation(ctx)
	if err != nil {
		return err
	}
	defer in.Close()
	switch {
	case pos[0] == "add" && len(pos) == 2:
		t, err := in.AddCLITool(ctx, app.NewCLITool{Name: pos[1], Path: *f.path, Env: f.env, Timeout: *f.timeout, Description: *f.describe})
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "Added cli:%s (%s), tier ask: every run waits for your approval. Lower it with tiers: {cli:%s: monitor} in the config.\n", t.Name, t.Path, t.Name)
		return nil
	case pos[0] == "list" && len(pos) == 1:
		return cliList(ctx, a, in)
	case pos[0] == "remove" && len(pos) == 2:
		if err := in.RemoveCLITool(ctx, pos[1]); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "Removed cli:%s.\n", pos[1])
		return nil
	case pos[0] == "run" && len(pos) == 2:
		out, err := in.RunCLITool(ctx, pos[1], argv)
		if err != nil {
			return err
		}
		fmt.Fprint(a.stdout, out)
		return nil
	}
	return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s", cliUsage)
}

// cliList lists the connected programs with the variables they get.
func cliList(ctx context.Context, a *cli, in *app.Installation) error {
	list, err := in.CLITools(ctx)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintln(a.stdout, "No CLI tools yet. Connect one with: jarvisbot cli add gh")
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	for _, t := range list {
		fmt.Fprintf(tw, "cli:%s\t%s\t%s\n", t.Name, t.Path, strings.Join(slices.Sorted(maps.Keys(t.Env)), " "))
	}
	return tw.Flush()
}
