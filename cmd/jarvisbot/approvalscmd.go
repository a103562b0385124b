package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/jarvisbot/jarvisbot"
)

// cmdApprovals: pending requests and the standing "always" grants (C2).
func cmdApprovals(ctx context.Context, a *cli, args []string) error {
	fs := newFlagSet(a, "approvals", "approvals list | grants | revoke TOOL")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	in, err := a.OpenInstallation(ctx)
	if err != nil {
		return err
	}
	defer in.Close()
	switch {
	case len(pos) == 0 || pos[0] == "list" && len(pos) == 1:
		list, err := in.PendingApprovals(ctx)
		if err != nil {
			return err
		}
		if len(list) == 0 {
			fmt.Fprintln(a.stdout, "No approval requests are waiting.")
		}
		for _, ap := range list {
			// A summary has several lines (what, the arguments that
			// matter, the agent's reason): each is indented under its id.
			fmt.Fprintf(a.stdout, "%s  %s  agent %s, chat %s, expires %s\n  %s\n", ap.ID, ap.Tool, ap.Agent, ap.Chat,
				ap.ExpiresAt.In(in.Config.Location()).Format("15:04 MST"), strings.ReplaceAll(ap.Summary, "\n", "\n  "))
		}
		return nil
	case pos[0] == "grants" && len(pos) == 1:
		list, err := in.AlwaysApproved(ctx)
		if err != nil {
			return err
		}
		if len(list) == 0 {
			fmt.Fprintln(a.stdout, "No tool runs without asking: nothing was approved \"always\".")
		}
		for _, t := range list {
			fmt.Fprintln(a.stdout, t)
		}
		return nil
	case pos[0] == "revoke" && len(pos) == 2:
		return a.printNote(noted(in.Revoke(ctx, pos[1])))
	}
	return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot approvals list | grants | revoke TOOL")
}
