package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/channels/console"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/httpsite"
	"github.com/jarvisbot/jarvisbot/store"
)

// cmdServe runs the service: every configured channel and the runtime.
// With no bot token it serves the console, so a fresh machine has an
// assistant at once.
func cmdServe(ctx context.Context, a *cli, args []string) error {
	fs := newFlagSet(a, "serve", "serve [--agent NAME]")
	agentName := fs.String("agent", store.DefaultAgent, "the agent that answers")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := a.LoadConfig()
	if err != nil {
		return err
	}
	log := a.Logger(cfg)
	s, err := a.OpenSession(ctx, cfg, log, app.SessionOptions{Agent: *agentName, ApprovalChat: cfg.Approvals.Channel, Share: true},
		func(rs app.ReplicaStore) ([]channels.Channel, error) { return a.channels(ctx, cfg, rs) })
	if err != nil {
		return err
	}
	defer s.Close()
	for _, ch := range s.Channels {
		if w, ok := ch.(app.WebhookBot); ok && w.Unbound != "" {
			log.Warn(w.Unbound)
			s.Ready.NotServed(w.Unbound, true)
		}
	}
	// The dashboard's listener opens before anything starts, so that
	// /healthz and /readyz answer during start-up (web/startup.go).
	dash, err := a.serveWeb(cfg, s, log)
	if err != nil {
		return err
	}
	defer dash.Close()
	surfSite, err := a.surfaceSite(cfg, s, log)
	if err != nil {
		return err
	}
	if surfSite.Listener != nil {
		defer func() { _ = surfSite.Listener.Close() }() // when serving never began; closed already after it
	}
	if err := s.Start(ctx, *agentName); err != nil {
		return err
	}
	return a.listen(ctx, s, surfSite, *agentName, log)
}

// listen starts the channels and, once they hear the owner, the MCP
// surface and the work that can wait; it serves until a signal or until
// every channel ended.
func (a *cli) listen(ctx context.Context, s *app.Session, surfSite httpsite.Site, agentName string, log *slog.Logger) error {
	cfg := s.Config
	recv, stopRecv := context.WithCancel(ctx)
	defer stopRecv()
	ends := s.Listen(recv)
	running := len(s.Channels) - app.AwaitChannels(ctx, s.Channels, ends, log)
	names := make([]string, 0, len(s.Channels))
	for _, ch := range s.Channels {
		names = append(names, ch.Name())
	}
	surf := a.serveSurface(cfg, s, surfSite, log)
	defer surf.Close()
	s.Ready.Started.Store(true) // /readyz, and the dashboard's pages
	log.Info("jarvisbot is ready", "channels", strings.Join(names, ","), "agent", agentName)
	s.AfterReady(ctx)
	return s.Wait(ctx, stopRecv, ends, running, cmp.Or(cfg.ShutdownTimeout, config.DefaultShutdownTimeout), log)
}

// channels builds the configured channels; the console when there is no
// bot token.
func (a *cli) channels(ctx context.Context, cfg config.Config, rs app.ReplicaStore) ([]channels.Channel, error) {
	var out []channels.Channel
	extra, err := a.BotChannels(ctx, cfg, rs)
	if err != nil {
		return nil, err
	}
	out = append(out, extra...)
	if len(out) == 0 {
		fmt.Fprintln(a.stdout, "jarvisbot: no Telegram or Discord token is set, so I am listening here. Type a message; Ctrl-D ends.")
		out = append(out, console.New(a.stdin, a.stdout, console.Options{}))
	}
	return out, nil
}
