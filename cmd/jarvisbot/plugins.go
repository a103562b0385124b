package main

import (
	"context"
	"fmt"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/plugins"
)

// cmdPlugins: jarvisbot plugins validate DIR.
func cmdPlugins(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "plugins", "plugins validate DIR")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 || pos[0] != "validate" {
		fs.Usage()
		return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot plugins validate DIR")
	}
	problems := plugins.Validate(pos[1])
	errs := 0
	for _, p := range problems {
		kind := "error"
		if p.Warning {
			kind = "warning"
		} else {
			errs++
		}
		fmt.Fprintf(a.stdout, "%s: %s\n", kind, p)
	}
	if errs > 0 {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s is not a valid plugin: %d problem(s)", pos[1], errs)
	}
	fmt.Fprintf(a.stdout, "%s is a valid plugin", pos[1])
	if len(problems) > 0 {
		fmt.Fprintf(a.stdout, " (%d warning(s))", len(problems))
	}
	fmt.Fprintln(a.stdout)
	return nil
}
