package app

import (
	"context"
	"crypto/rand"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/channels/discord"
	"github.com/jarvisbot/jarvisbot/channels/telegram"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/httpsite"
	"github.com/jarvisbot/jarvisbot/store"
)

// ReplicaStore is what the channels need of a store that several serve
// replicas may share (ST2): who polls Telegram or holds a Discord shard,
// and the salt of the webhook's secret.
type ReplicaStore interface {
	jarvisbot.Leases
	store.Shared
}

// webhookSaltName names the shared salt the Telegram webhook's secret token
// is derived from (with the bot token, which every replica has).
const webhookSaltName = "telegram-webhook-salt"

// BotChannels builds the Telegram and Discord channels whose tokens are
// set, in the keyring or the environment. With rs nil the bots only send
// (schedule run beside a serve that receives).
func (a *Env) BotChannels(ctx context.Context, cfg config.Config, rs ReplicaStore) ([]channels.Channel, error) {
	var out []channels.Channel
	var leases jarvisbot.Leases
	if rs != nil {
		leases = rs
	}
	if tok := a.SecretOrEnv(ctx, cfg, "TELEGRAM_BOT_TOKEN"); tok != "" {
		bot, err := telegram.New(ctx, telegram.Options{Token: tok, BaseURL: cfg.Telegram.APIEndpoint, Logger: a.Logger(cfg), Leases: leases})
		if err != nil {
			return nil, err
		}
		if cfg.Telegram.WebhookURL != "" && rs != nil {
			salt, err := rs.SharedValue(ctx, webhookSaltName, func() (string, error) { return rand.Text(), nil })
			if err != nil {
				return nil, err
			}
			// Bound before anything starts, like the dashboard: an address
			// the owner set that cannot be bound stops serve; the default
			// one taken leaves the bot deaf, which /readyz says.
			site := httpsite.Site{What: "the Telegram webhook", Setting: "telegram.webhook_listen or " + config.EnvWebhookListen,
				Addr: cfg.Telegram.WebhookAddr(), Explicit: cfg.Telegram.WebhookListen != "",
				Cert: cfg.Telegram.WebhookTLSCert, Key: cfg.Telegram.WebhookTLSKey}
			ln, unbound, err := site.Bind()
			if err == nil && ln != nil {
				ln, _, err = site.TLS(ln)
			}
			if err != nil {
				return nil, err
			}
			out = append(out, WebhookBot{Bot: bot, hook: telegram.Webhook{URL: cfg.Telegram.WebhookURL, Listen: site.Addr, Listener: ln, Salt: salt}, Unbound: unbound})
		} else {
			out = append(out, bot)
		}
	}
	if tok := a.SecretOrEnv(ctx, cfg, "DISCORD_BOT_TOKEN"); tok != "" {
		bot, err := discord.New(ctx, discord.Options{Token: tok, APIBase: cfg.Discord.APIBase, Logger: a.Logger(cfg), Shards: cfg.Discord.Shards, Leases: leases})
		if err != nil {
			return nil, err
		}
		out = append(out, bot)
	}
	return out, nil
}

// WebhookBot is the Telegram channel receiving by webhook.
type WebhookBot struct {
	*telegram.Bot
	hook telegram.Webhook
	// Unbound says why the webhook has no listener (its default address
	// was taken): the bot then only sends, and /readyz says not ready.
	Unbound string
}

func (w WebhookBot) Run(ctx context.Context, h channels.Handler) error {
	if w.Unbound != "" {
		<-ctx.Done() // it sends; nothing comes in to wait for
		return nil
	}
	return w.Bot.RunWebhook(ctx, h, w.hook)
}
