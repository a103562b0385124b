package discord

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/names"
)

// Discord's limits on buttons.
const (
	maxRows        = 5
	maxRowButtons  = 5
	maxCustomID    = 100 // bytes
	maxButtonLabel = 80  // characters
)

// channelID returns the channel id of a "discord:ID" chat.
func channelID(chat string) (string, error) {
	id, ok := strings.CutPrefix(chat, Platform+":")
	if !ok || id == "" || strings.Trim(id, "0123456789") != "" {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "discord: %q is not a Discord chat: want discord:CHANNEL_ID", chat)
	}
	return id, nil
}

// noMentions keeps what the model writes from pinging anyone
// ("@everyone", "<@id>" render, but notify no one).
func noMentions() *discordgo.MessageAllowedMentions {
	return &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}
}

// components turns rows of buttons into action rows, or refuses them
// whole when Discord would.
func components(rows [][]channels.Button) ([]discordgo.MessageComponent, error) {
	var out []discordgo.MessageComponent
	seen := map[string]bool{}
	for _, row := range rows {
		if len(row) == 0 {
			continue
		}
		if len(row) > maxRowButtons {
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "discord: a row holds at most %d buttons, got %d", maxRowButtons, len(row))
		}
		var ar discordgo.ActionsRow
		for _, btn := range row {
			switch {
			case btn.Data == "" || len(btn.Data) > maxCustomID:
				return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "discord: the data of button %q is %d bytes; Discord takes 1 to %d", btn.Label, len(btn.Data), maxCustomID)
			case seen[btn.Data]:
				return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "discord: two buttons carry the same data %q; Discord needs each to differ", btn.Data)
			}
			seen[btn.Data] = true
			label := strings.TrimSpace(btn.Label)
			if r := []rune(label); len(r) > maxButtonLabel {
				label = string(r[:maxButtonLabel-1]) + "…"
			}
			if label == "" {
				label = "·"
			}
			ar.Components = append(ar.Components, discordgo.Button{Label: label, Style: discordgo.SecondaryButton, CustomID: btn.Data})
		}
		out = append(out, ar)
	}
	if len(out) > maxRows {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "discord: a message holds at most %d rows of buttons, got %d", maxRows, len(out))
	}
	return out, nil
}

// Send renders the text for Discord, splits it at 2000 characters and
// sends the parts in order; the last carries the buttons. When a part
// fails, the parts before it stay sent and the error says how many.
func (b *Bot) Send(ctx context.Context, m channels.Outgoing) (string, error) {
	cid, err := channelID(m.Chat)
	if err != nil {
		return "", err
	}
	comps, err := components(m.Buttons)
	if err != nil {
		return "", err
	}
	var parts []string
	var flags discordgo.MessageFlags
	if m.Plain {
		parts, flags = plainParts(m.Text), discordgo.MessageFlagsSuppressEmbeds
	} else {
		parts = split(render(m.Text), maxContent)
	}
	if len(parts) == 0 {
		if comps == nil {
			return "", jarvisbot.Errorf(jarvisbot.EINVALID, "discord: nothing to send to %s: the message has no text and no buttons", m.Chat)
		}
		parts = []string{""}
	}
	var id string
	for i, p := range parts {
		send := &discordgo.MessageSend{Content: p, AllowedMentions: noMentions(), Flags: flags}
		if i == 0 && m.ReplyTo != "" {
			send.Reference = &discordgo.MessageReference{MessageID: m.ReplyTo, ChannelID: cid, FailIfNotExists: new(false)}
		}
		if i == len(parts)-1 {
			send.Components = comps
		}
		msg, err := b.s.ChannelMessageSendComplex(cid, send, discordgo.WithContext(ctx))
		if err != nil {
			what := "sending a message to " + m.Chat
			if len(parts) > 1 {
				what = fmt.Sprintf("sending part %d of %d to %s (%d sent)", i+1, len(parts), m.Chat, i)
			}
			return id, apiError(what, err)
		}
		id = msg.ID
	}
	return id, nil
}

// Edit replaces a message's text and buttons; nil buttons removes them.
// One message holds 2000 characters: longer text is cut to its first part.
func (b *Bot) Edit(ctx context.Context, chat, messageID, text string, buttons [][]channels.Button) error {
	cid, err := channelID(chat)
	if err != nil {
		return err
	}
	comps, err := components(buttons)
	if err != nil {
		return err
	}
	if comps == nil {
		comps = []discordgo.MessageComponent{} // sent as [], which removes them
	}
	content := ""
	if parts := split(render(text), maxContent); len(parts) > 0 {
		content = parts[0]
		if len(parts) > 1 {
			b.log.Warn("discord: an edit is longer than one message; only its first part is shown", "chat", chat, "message", messageID)
		}
	}
	if content == "" && len(comps) == 0 {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "discord: editing message %s in %s: the new message has no text and no buttons", messageID, chat)
	}
	e := discordgo.NewMessageEdit(cid, messageID)
	e.Content = &content
	e.Components = &comps
	e.AllowedMentions = noMentions()
	if _, err := b.s.ChannelMessageEditComplex(e, discordgo.WithContext(ctx)); err != nil {
		return apiError("editing message "+messageID+" in "+chat, err)
	}
	return nil
}

// Typing shows "typing…" in the chat for about 10 s, or until the bot's
// next message there; call it again to keep it up.
func (b *Bot) Typing(ctx context.Context, chat string) error {
	cid, err := channelID(chat)
	if err != nil {
		return err
	}
	if err := b.s.ChannelTyping(cid, discordgo.WithContext(ctx)); err != nil {
		return apiError("showing typing in "+chat, err)
	}
	return nil
}

// commandPunct is what Discord allows in a command's name besides
// lowercase letters and digits (names.Command).
const commandPunct = "-_"

// SetCommands replaces the bot's global slash commands. Each takes one
// optional text argument, so "/pair 123456" works as typed; Discord may
// take up to an hour to show changed global commands in every client.
func (b *Bot) SetCommands(ctx context.Context, cmds []channels.Command) error {
	out := make([]*discordgo.ApplicationCommand, 0, len(cmds))
	for _, c := range cmds {
		name := strings.ToLower(strings.TrimPrefix(c.Name, "/"))
		if !names.Command(name, commandPunct) {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "discord: %q is not a valid slash command name: use 1 to 32 lowercase letters, digits, - or _", c.Name)
		}
		desc := strings.TrimSpace(c.Description)
		if desc == "" {
			desc = name
		}
		if r := []rune(desc); len(r) > 100 {
			desc = string(r[:99]) + "…"
		}
		out = append(out, &discordgo.ApplicationCommand{
			Name: name, Description: desc, Type: discordgo.ChatApplicationCommand,
			Options: []*discordgo.ApplicationCommandOption{{
				Type: discordgo.ApplicationCommandOptionString, Name: "text", Description: "what follows the command",
			}},
		})
	}
	b.mu.Lock()
	app := b.appID
	b.mu.Unlock()
	if _, err := b.s.ApplicationCommandBulkOverwrite(app, "", out, discordgo.WithContext(ctx)); err != nil {
		return apiError("registering slash commands", err)
	}
	return nil
}

// apiError turns a failed REST call into a sentence with a code. It never
// repeats the request's URL or headers: both can hold tokens.
func apiError(what string, err error) error {
	var rest *discordgo.RESTError
	var limited *discordgo.RateLimitError
	var ue *url.Error
	switch {
	case errors.As(err, &rest) && rest.Response != nil:
		status := rest.Response.StatusCode
		detail := ""
		if rest.Message != nil && rest.Message.Message != "" {
			detail = ": " + rest.Message.Message
		}
		e := &jarvisbot.Error{Err: err}
		switch {
		case status == http.StatusUnauthorized:
			e.Code = jarvisbot.EINVALID
			e.Message = fmt.Sprintf("discord: %s: Discord refused the bot token (HTTP 401); store a valid one with `jarvisbot secrets set DISCORD_BOT_TOKEN`", what)
		case status == http.StatusForbidden:
			e.Code = jarvisbot.EFORBIDDEN
			e.Message = fmt.Sprintf("discord: %s: the bot is not allowed to (HTTP 403%s); check its permissions in that server or channel", what, detail)
		case status == http.StatusNotFound:
			e.Code = jarvisbot.ENOTFOUND
			e.Message = fmt.Sprintf("discord: %s: not found (HTTP 404%s)", what, detail)
		case status >= 500:
			e.Code = jarvisbot.EUNAVAILABLE
			e.Message = fmt.Sprintf("discord: %s: Discord failed (HTTP %d%s); try again later", what, status, detail)
		default:
			e.Code = jarvisbot.EINVALID
			e.Message = fmt.Sprintf("discord: %s: Discord refused the request (HTTP %d%s)", what, status, detail)
		}
		return e
	case errors.As(err, &limited):
		return &jarvisbot.Error{Code: jarvisbot.EUNAVAILABLE, Err: err,
			Message: fmt.Sprintf("discord: %s: rate limited; retry after %s", what, limited.RetryAfter)}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("discord: %s: %w", what, err)
	case errors.As(err, &ue):
		return &jarvisbot.Error{Code: jarvisbot.EUNAVAILABLE, Err: ue.Err,
			Message: fmt.Sprintf("discord: %s: cannot reach Discord: %v", what, ue.Err)}
	}
	return &jarvisbot.Error{Code: jarvisbot.EUNAVAILABLE, Err: err, Message: fmt.Sprintf("discord: %s: %v", what, err)}
}

// gatewayError explains why the gateway connection failed.
func gatewayError(err error) error {
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		switch ce.Code {
		case 4004:
			return jarvisbot.Errorf(jarvisbot.EINVALID, "discord: the gateway refused the bot token (close code 4004); store a valid one with `jarvisbot secrets set DISCORD_BOT_TOKEN`")
		case 4013, 4014:
			return jarvisbot.Errorf(jarvisbot.EFORBIDDEN, "discord: the gateway refused the intents (close code %d): enable the Message Content intent for the bot in Discord's developer portal", ce.Code)
		}
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "discord: the gateway closed the connection (code %d %s); try again later", ce.Code, ce.Text)
	}
	return apiError("connecting to the gateway", err)
}
