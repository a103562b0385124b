package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog/clitool"
	"github.com/jarvisbot/jarvisbot/store"
)

const cliUsage = `cli add NAME [--path PROGRAM] [--env K=V]... [--timeout 60s] [--describe "what it is for"]
       jarvisbot cli list | remove NAME | run NAME -- ARGS...`

// cmdCLI: connected command-line tools (P5).
func cmdCLI(ctx context.Context, a *app, args []string) error {
	args, argv := splitCommand(args)
	fs := newFlagSet(a, "cli", cliUsage)
	path := fs.String("path", "", "add: the program's path, when it is not NAME on PATH")
	var env listFlag
	fs.Var(&env, "env", "add: an environment variable K=V the program gets (V may be ${SECRET}); repeatable")
	timeout := fs.Duration("timeout", 0, "add: deadline of one run (default 60s)")
	describe := fs.String("describe", "", "add: what the program is for, in a sentence, for the model")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fs.Usage()
		return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s", cliUsage)
	}
	cfg, db, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	switch {
	case pos[0] == "add" && len(pos) == 2:
		t, err := clitool.Resolve(pos[1], *path)
		if err != nil {
			return err
		}
		vals, err := keyValues(env, "=", "--env")
		if err != nil {
			return err
		}
		if err := noLiteralSecrets(store.MCPServer{Name: "cli:" + t.Name, Env: vals}); err != nil {
			return err
		}
		if err := db.AddCLITool(ctx, store.CLITool{Name: t.Name, Path: t.Path, Env: vals, Timeout: *timeout, Description: *describe}); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "Added cli:%s (%s), tier ask: every run waits for your approval. Lower it with tiers: {cli:%s: monitor} in the config.\n", t.Name, t.Path, t.Name)
		return nil
	case pos[0] == "list" && len(pos) == 1:
		list, err := db.CLITools(ctx)
		if err != nil {
			return err
		}
		if len(list) == 0 {
			fmt.Fprintln(a.stdout, "No CLI tools yet. Connect one with: jarvisbot cli add gh")
			return nil
		}
		tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
		for _, t := range list {
			fmt.Fprintf(tw, "cli:%s\t%s\t%s\n", t.Name, t.Path, strings.Join(sortedKeys(t.Env), " "))
		}
		return tw.Flush()
	case pos[0] == "remove" && len(pos) == 2:
		if err := db.RemoveCLITool(ctx, pos[1]); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "Removed cli:%s.\n", pos[1])
		return nil
	case pos[0] == "run" && len(pos) == 2:
		list, err := db.CLITools(ctx)
		if err != nil {
			return err
		}
		for _, st := range list {
			if st.Name != pos[1] {
				continue
			}
			raw, _ := json.Marshal(map[string][]string{"args": append([]string{}, argv...)})
			res, err := cliTool(st).Call(ctx, raw, clitool.Lookup(mcpCmd{a: a, cfg: cfg, db: db}.lookup(ctx)), 0)
			if err != nil {
				return err
			}
			fmt.Fprint(a.stdout, res.Text)
			return nil
		}
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no CLI tool named %s (see jarvisbot cli list)", pos[1])
	}
	return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s", cliUsage)
}

func cliTool(t store.CLITool) clitool.Tool {
	return clitool.Tool{Name: t.Name, Path: t.Path, Env: t.Env, Timeout: t.Timeout, Description: t.Description}
}
