package main

import (
	"context"
	"fmt"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
)

// The owner's pause (X5, M4): an app with a full key may pause every agent
// (pause_all), and whatever an app can switch the owner can undo, from
// chat (/pause, /resume), the CLI (jarvisbot pause|resume) and the
// dashboard. Every door records the switch in the store, where serve reads
// it (at once for its own doors, within app.PauseSyncEvery for the CLI's).

const pauseUsage = `pause | jarvisbot resume`

// cmdPause is `jarvisbot pause` and `jarvisbot resume`: the switch in the
// store, which a running serve takes up within seconds.
func cmdPause(pause bool) func(ctx context.Context, a *cli, args []string) error {
	name := map[bool]string{true: "pause", false: "resume"}[pause]
	return func(ctx context.Context, a *cli, args []string) error {
		fs := newFlagSet(a, name, pauseUsage)
		pos, err := parseFlags(fs, args)
		if err != nil {
			return err
		}
		if len(pos) != 0 {
			fs.Usage()
			return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s (it takes no arguments)", name)
		}
		in, err := a.OpenInstallation(ctx)
		if err != nil {
			return err
		}
		defer in.Close()
		switchIt := in.ResumeAll
		if pause {
			switchIt = in.PauseAll
		}
		before, err := switchIt(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, app.PauseNote(before, pause, "run jarvisbot resume (or send /resume in chat)"))
		if before.Paused != pause {
			fmt.Fprintln(a.stdout, "A running jarvisbot serve takes it up within seconds.")
		}
		return nil
	}
}
