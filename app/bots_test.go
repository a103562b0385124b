package app

import (
	"context"
	"net"
	"testing"

	"github.com/jarvisbot/jarvisbot/channels/telegram"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
)

const botToken = "123456:AAH-secret_token-value"

// TestBotChannelsFollowTheTokensAndTheWebhookCH1: no token, no bot; a
// Telegram token makes a bot that polls, or with a webhook URL and a
// shared store one that listens on the webhook's address with a salt all
// replicas share; without the store (schedule run) it only sends; an
// address the owner set that is taken stops it.
func TestBotChannelsFollowTheTokensAndTheWebhookCH1(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	cfg := in.Config
	if chs, err := in.Env.BotChannels(ctx, cfg, in.DB); err != nil || len(chs) != 0 {
		t.Fatalf("no token: %v, %v", chs, err)
	}
	k, err := in.Env.OpenKeyring(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.SetSecret(ctx, "TELEGRAM_BOT_TOKEN", botToken); err != nil {
		t.Fatal(err)
	}
	cfg.Telegram.APIEndpoint = faketelegram.New(t, botToken).URL + "/bot%s/%s"
	chs, err := in.Env.BotChannels(ctx, cfg, in.DB)
	if err != nil || len(chs) != 1 {
		t.Fatalf("polling bot: %v, %v", chs, err)
	}
	if _, ok := chs[0].(*telegram.Bot); !ok {
		t.Errorf("polling bot is a %T", chs[0])
	}

	cfg.Telegram.WebhookURL = "https://jarvis.example.org/telegram"
	cfg.Telegram.WebhookListen = "127.0.0.1:0"
	var salts []string
	for range 2 {
		chs, err := in.Env.BotChannels(ctx, cfg, in.DB)
		if err != nil || len(chs) != 1 {
			t.Fatalf("webhook bot: %v, %v", chs, err)
		}
		w, ok := chs[0].(WebhookBot)
		if !ok || w.Unbound != "" || w.hook.Listener == nil {
			t.Fatalf("webhook bot: %T %+v", chs[0], chs[0])
		}
		w.hook.Listener.Close()
		salts = append(salts, w.hook.Salt)
	}
	if salts[0] == "" || salts[0] != salts[1] {
		t.Errorf("the webhook's salt is not shared: %q", salts)
	}
	if chs, err := in.Env.BotChannels(ctx, cfg, nil); err != nil || len(chs) != 1 {
		t.Fatalf("sending bot: %v, %v", chs, err)
	} else if _, ok := chs[0].(*telegram.Bot); !ok {
		t.Errorf("without a shared store the bot is a %T", chs[0])
	}

	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	cfg.Telegram.WebhookListen = taken.Addr().String()
	if _, err := in.Env.BotChannels(ctx, cfg, in.DB); err == nil {
		t.Error("a taken webhook address the owner set did not stop the bots")
	}
}

// failingLeases fails every lead.
