package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/appkey"
)

const appsUsage = `apps add NAME [--scope read|work|full]   (default read: sees, changes nothing)
       jarvisbot apps list [--json] | revoke NAME [--resume]
       jarvisbot apps config NAME --client claude-desktop|claude-code|cursor|vscode|codex`

// cmdApps: the apps that use jarvisbot's MCP surface, each with its own
// key (M4).
func cmdApps(ctx context.Context, a *cli, args []string) error {
	fs := newFlagSet(a, "apps", appsUsage)
	scope := fs.String("scope", string(appkey.ScopeRead), "add: what the key allows: read (sees), work (also talks to agents, posts jobs, runs scheduled skills) or full (also answers approvals, pauses everything)")
	asJSON := fs.Bool("json", false, "list: one JSON array")
	resume := fs.Bool("resume", false, "revoke: also lift the pause the app set with pause_all, if it did")
	client := fs.String("client", "", "config: the MCP client: "+strings.Join(appkey.Clients(), ", "))
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	usage := jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s", appsUsage)
	if len(pos) == 0 {
		fs.Usage()
		return usage
	}
	// Check what can be checked before opening the store.
	switch {
	case pos[0] == "add" && len(pos) == 2:
		if _, err := app.CheckNewApp(pos[1], *scope); err != nil {
			return err
		}
	case pos[0] == "config" && len(pos) == 2:
		if *client == "" {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "say which client with --client: %s", strings.Join(appkey.Clients(), ", "))
		}
	case pos[0] == "list" && len(pos) == 1, pos[0] == "revoke" && len(pos) == 2:
	default:
		return usage
	}
	in, err := a.OpenInstallation(ctx)
	if err != nil {
		return err
	}
	defer in.Close()
	switch pos[0] {
	case "add":
		return a.appsAdd(ctx, in, pos[1], *scope)
	case "list":
		return a.appsList(ctx, in, *asJSON)
	case "revoke":
		return a.appsRevoke(ctx, in, pos[1], *resume)
	default: // config
		return a.appsConfig(ctx, in, pos[1], *client)
	}
}

// appsAdd shows the new app's key this once: the store keeps only its
// hash, so it cannot be shown again.
func (a *cli) appsAdd(ctx context.Context, in *app.Installation, name, scope string) error {
	ad, err := in.AddApp(ctx, name, scope)
	if err != nil {
		return err
	}
	w := a.stdout
	fmt.Fprintf(w, "Added app %s, scope %s: %s.\n", ad.Name, ad.Scope, ad.Scope.Says())
	fmt.Fprintf(w, "Its key is shown this once (jarvisbot keeps only its hash). Paste this where the app starts:\n\n")
	fmt.Fprintf(w, "  export %s=%s\n\n", appkey.EnvKey, ad.Key)
	fmt.Fprintf(w, "The app reaches jarvisbot at %s with the header Authorization: Bearer $%s.\n", ad.Endpoint, appkey.EnvKey)
	fmt.Fprintf(w, "Its client's config: jarvisbot apps config %s --client %s\n", name, strings.Join(appkey.Clients(), "|"))
	fmt.Fprintf(w, "Lost the key? jarvisbot apps revoke %s, then add it again.\n", name)
	return nil
}

func (a *cli) appsList(ctx context.Context, in *app.Installation, asJSON bool) error {
	list, err := in.ListApps(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		b, err := json.Marshal(app.AppRows(list))
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(a.stdout, "%s\n", b)
		return err
	}
	if len(list) == 0 {
		fmt.Fprintf(a.stdout, "No apps yet. Add one with: jarvisbot apps add NAME [--scope read|work|full]\n")
		return nil
	}
	when := func(t time.Time, none string) string {
		if t.IsZero() {
			return none
		}
		return t.Local().Format("2006-01-02 15:04")
	}
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSCOPE\tCREATED\tLAST USED\tREVOKED")
	for _, ap := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", ap.Name, ap.Scope, when(ap.CreatedAt, "-"), when(ap.LastUsedAt, "never"), when(ap.RevokedAt, "-"))
	}
	return tw.Flush()
}

// appsConfig prints the client's config snippet on stdout (so it can be
// redirected into the file) and where it goes on stderr.
func (a *cli) appsConfig(ctx context.Context, in *app.Installation, name, client string) error {
	c, err := in.AppClientConfig(ctx, name, client)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.Stderr, "# %s config for app %s (scope %s), in %s:\n", client, name, c.App.Scope, c.Snippet.Where)
	fmt.Fprint(a.stdout, c.Snippet.Text)
	for _, line := range c.Snippet.Then {
		fmt.Fprintf(a.Stderr, "# %s\n", line)
	}
	return nil
}

// appsRevoke revokes the app's key and says whether the pause it set
// stays (X5): the app cannot resume any more, so the pause stays until
// the owner lifts it, with --resume or jarvisbot resume.
func (a *cli) appsRevoke(ctx context.Context, in *app.Installation, name string, resume bool) error {
	r, err := in.RevokeApp(ctx, name, resume)
	if !r.Revoked {
		return err
	}
	fmt.Fprintf(a.stdout, "Revoked app %s: its key is refused from the next request on.\n", name)
	switch {
	case r.Resumed != nil:
		fmt.Fprintln(a.stdout, app.PauseNote(*r.Resumed, false, ""))
	case r.PausedEverything && !resume:
		fmt.Fprintf(a.stdout, "App %s had paused everything, and it stays paused: run jarvisbot resume (or send /resume in chat) to lift it.\n", name)
	}
	return err
}
