package main

import (
	"context"

	"github.com/jarvisbot/jarvisbot/channel"
	"github.com/jarvisbot/jarvisbot/config"
)

type configT = config.Config

// botChannels builds the Telegram and Discord channels whose tokens are set.
func (a *app) botChannels(ctx context.Context, cfg config.Config) ([]channel.Channel, error) {
	return nil, nil
}
