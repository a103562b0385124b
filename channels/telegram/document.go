package telegram

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/channels"
)

// plainParts splits a Plain text, shown as written (its tags are text),
// into messages, each headed by the text's first line (who it is from).
func plainParts(text string) []string {
	head, rest, _ := strings.Cut(text, "\n")
	n := len(utf16.Encode([]rune(head)))
	if n > maxText/4 || strings.TrimSpace(rest) == "" {
		return splitHTML(escapeHTML(text), maxText)
	}
	parts := splitHTML(escapeHTML(rest), maxText-n-1)
	for i := range parts {
		parts[i] = escapeHTML(head) + "\n" + parts[i]
	}
	return parts
}

// SendDocument sends a file (sendDocument) with its caption as plain text,
// cut to Telegram's caption limit.
func (b *Bot) SendDocument(ctx context.Context, d channels.Document) (string, error) {
	chat, err := chatID(d.Chat)
	if err != nil {
		return "", err
	}
	if len(d.Data) == 0 {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "telegram: no file to send to %s: it is empty", d.Chat)
	}
	cfg := tgbotapi.NewDocument(chat, tgbotapi.FileBytes{Name: d.Name, Bytes: d.Data})
	// Half the limit in characters: an emoji counts twice in UTF-16.
	cfg.Caption = truncate(d.Caption, maxCaption/2)
	resp, err := b.call(ctx, "sendDocument", cfg)
	if err != nil {
		return "", jarvisbot.Errorf(appCode(err), "telegram: sending the file %s to %s: %w", d.Name, d.Chat, err)
	}
	var msg sent
	if err := json.Unmarshal(resp.Result, &msg); err != nil {
		return "", jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "telegram: sending the file %s to %s: the answer is not a message", d.Name, d.Chat)
	}
	return strconv.Itoa(msg.MessageID), nil
}
