package desk

import (
	"context"
	"fmt"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents/attachments"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/store"
)

// Photos and documents (CH4) take the voice notes' path: an owner's file
// is downloaded from the platform's own file host when it arrives, its
// type and size checked before, and kept in the inbox with the message
// until the turn that reads it is answered.

// maxFileBytes is the largest file taken: what Telegram lets a bot
// download, and far more than a model reads of one.
const maxFileBytes = 20 << 20

// fetchFile downloads an owner's file for the inbox. A file of a type not
// read, over the bound, or whose download fails, gets one answer and no
// turn (nil).
func (d *Desk) fetchFile(ctx context.Context, m channels.Message) *store.IncomingFile {
	f := m.File
	what := attachments.Describe(f.Photo, f.MIME, f.FileName)
	refuse := func(text string) *store.IncomingFile {
		if d.first(ctx, m.Chat, m.Delivery) { // refused once, however often it comes
			d.send(ctx, channels.Outgoing{Chat: m.Chat, Text: text, ReplyTo: m.ID})
		}
		return nil
	}
	if _, ok := attachments.KindOf(f.Photo, f.MIME, f.FileName); !ok {
		return refuse(fmt.Sprintf("I cannot read that %s: %s.", what, attachments.Accepted))
	}
	switch {
	case f.Size > maxFileBytes:
		return refuse(fmt.Sprintf("That %s is %d MB; I take files of up to %d MB. Please send a smaller one.",
			what, (f.Size+1<<20-1)>>20, maxFileBytes>>20))
	case f.Fetch == nil:
		d.log.Error("a channel announced a file it cannot download", "chat", m.Chat)
		return refuse(fmt.Sprintf("I could not download your %s: this channel cannot fetch it.", what))
	}
	data, why := d.download(ctx, m.Chat, what, f.Fetch, maxFileBytes)
	if why != "" {
		return refuse(why)
	}
	return &store.IncomingFile{Data: data, MIME: f.MIME, FileName: f.FileName, Photo: f.Photo}
}

// download fetches what the owner sent (a file or audio, said as what)
// from the platform's own file host within fetchTimeout and max bytes. It
// returns the bytes, or the one sentence the owner gets instead: the host
// refused it (too large, not there), or the download failed.
func (d *Desk) download(ctx context.Context, chat, what string, fetch func(context.Context, int64) ([]byte, error), max int64) ([]byte, string) {
	fctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	data, err := fetch(fctx, max)
	switch {
	case err != nil && jarvisbot.ErrorCode(err) == jarvisbot.EINVALID:
		return nil, fmt.Sprintf("I could not take your %s: %v.", what, strings.TrimSuffix(err.Error(), "."))
	case err != nil:
		d.log.Warn("downloading what the owner sent", "what", what, "chat", chat, "err", err)
		return nil, fmt.Sprintf("I could not download your %s: %v. Please send it again.", what, strings.TrimSuffix(err.Error(), "."))
	}
	return data, ""
}
