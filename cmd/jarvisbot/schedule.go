package main

import (
	"context"
	"fmt"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
)

// cmdSchedule: the scheduled skills (SC1). Only `run` starts the service
// (MCP servers, the runtime); list, pause and resume read and write the
// store.
func cmdSchedule(ctx context.Context, a *cli, args []string) error {
	fs := newFlagSet(a, "schedule", "schedule list | run NAME | pause NAME | resume NAME")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		pos = []string{"list"}
	}
	switch {
	case pos[0] == "list" && len(pos) == 1, pos[0] == "run" && len(pos) == 2,
		(pos[0] == "pause" || pos[0] == "resume") && len(pos) == 2:
	default:
		return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot schedule list | run NAME | pause NAME | resume NAME")
	}
	if pos[0] == "run" {
		cfg, err := a.LoadConfig()
		if err != nil {
			return err
		}
		return a.RunScheduledAtTerminal(ctx, cfg, pos[1], a.stdin, a.stdout)
	}
	in, err := a.OpenInstallation(ctx)
	if err != nil {
		return err
	}
	defer in.Close()
	if pos[0] == "list" {
		sch, err := in.Schedule(ctx)
		a.warn(sch.Warnings)
		if err != nil {
			return err
		}
		return app.WriteSchedule(a.stdout, sch.Entries)
	}
	r, err := in.PauseScheduled(ctx, pos[1], pos[0] == "pause")
	a.warn(r.Warnings)
	if err != nil {
		return err
	}
	if r.Paused {
		fmt.Fprintln(a.stdout, r.Skill+" is paused.")
	} else {
		fmt.Fprintln(a.stdout, r.Skill+" is resumed.")
	}
	return nil
}

// warn shows the warnings a use case returned, one a line.
func (a *cli) warn(lines []string) {
	for _, l := range lines {
		fmt.Fprintln(a.Stderr, l)
	}
}
