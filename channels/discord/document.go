package discord

import (
	"bytes"
	"context"
	"regexp"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/channels"
)

// markdownChar is every character Discord's Markdown may read as syntax;
// a backslash before one shows it as written.
var markdownChar = regexp.MustCompile("[\\\\*_~`|>#\\-\\[\\]()<:@]")

// escapeMarkdown writes text so that Discord shows it as written: no
// emphasis, headings, quotes, masked links or mentions.
func escapeMarkdown(text string) string {
	return markdownChar.ReplaceAllString(text, `\$0`)
}

// plainParts splits a Plain text, shown as written, into messages, each
// headed by the text's first line (who it is from).
func plainParts(text string) []string {
	head, rest, _ := strings.Cut(text, "\n")
	head = escapeMarkdown(head)
	if size(head) > maxContent/4 || strings.TrimSpace(rest) == "" {
		return split(escapeMarkdown(text), maxContent)
	}
	parts := split(escapeMarkdown(rest), maxContent-size(head)-1)
	for i := range parts {
		parts[i] = head + "\n" + parts[i]
	}
	return parts
}

// SendDocument sends a file as an attachment, the caption as the
// message's text shown as written (cut to one message), with no embeds.
func (b *Bot) SendDocument(ctx context.Context, d channels.Document) (string, error) {
	cid, err := channelID(d.Chat)
	if err != nil {
		return "", err
	}
	if len(d.Data) == 0 {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "discord: no file to send to %s: it is empty", d.Chat)
	}
	caption := ""
	if parts := split(escapeMarkdown(d.Caption), maxContent); len(parts) > 0 {
		caption = parts[0]
	}
	send := &discordgo.MessageSend{
		Content:         caption,
		AllowedMentions: noMentions(),
		Flags:           discordgo.MessageFlagsSuppressEmbeds,
		Files:           []*discordgo.File{{Name: d.Name, ContentType: "text/plain; charset=utf-8", Reader: bytes.NewReader(d.Data)}},
	}
	msg, err := b.s.ChannelMessageSendComplex(cid, send, discordgo.WithContext(ctx))
	if err != nil {
		return "", apiError("sending the file "+d.Name+" to "+d.Chat, err)
	}
	return msg.ID, nil
}
