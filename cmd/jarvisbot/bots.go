package main

import (
	"context"

	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/channels/discord"
	"github.com/jarvisbot/jarvisbot/channels/telegram"
	"github.com/jarvisbot/jarvisbot/internal/config"
)

// botChannels builds the Telegram and Discord channels whose tokens are
// set, in the keyring or the environment.
func (a *app) botChannels(ctx context.Context, cfg config.Config) ([]channels.Channel, error) {
	var out []channels.Channel
	if tok := a.secretOrEnv(ctx, cfg, "TELEGRAM_BOT_TOKEN"); tok != "" {
		bot, err := telegram.New(ctx, telegram.Options{Token: tok, BaseURL: cfg.Telegram.APIEndpoint, Logger: a.logger(cfg)})
		if err != nil {
			return nil, err
		}
		if cfg.Telegram.WebhookURL != "" {
			listen := cfg.Telegram.WebhookListen
			if listen == "" {
				listen = "127.0.0.1:8443"
			}
			out = append(out, webhookBot{bot, listen, cfg.Telegram.WebhookURL})
		} else {
			out = append(out, bot)
		}
	}
	if tok := a.secretOrEnv(ctx, cfg, "DISCORD_BOT_TOKEN"); tok != "" {
		bot, err := discord.New(ctx, discord.Options{Token: tok, APIBase: cfg.Discord.APIBase, Logger: a.logger(cfg)})
		if err != nil {
			return nil, err
		}
		out = append(out, bot)
	}
	return out, nil
}

// webhookBot is the Telegram channel receiving by webhook.
type webhookBot struct {
	*telegram.Bot
	listen, url string
}

func (w webhookBot) Run(ctx context.Context, h channels.Handler) error {
	return w.Bot.RunWebhook(ctx, h, w.listen, w.url)
}
