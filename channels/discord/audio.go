package discord

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/sizelimit"
)

// audio returns the recording a message carries: the attachment of a
// voice message (flag IS_VOICE_MESSAGE), or else the first attachment
// whose content type is audio/*; nil when there is none. Only the first
// counts: one message is one turn.
func (b *Bot) audio(m *discordgo.Message) *channels.Audio {
	voice := m.Flags&discordgo.MessageFlagsIsVoiceMessage != 0
	for _, a := range m.Attachments {
		if a == nil || a.URL == "" {
			continue
		}
		mt := mediaType(a.ContentType)
		// Discord records voice messages as OGG/Opus: one whose
		// attachment lacks a content type is still taken (MIME "").
		if !strings.HasPrefix(mt, "audio/") && !(voice && mt == "") {
			continue
		}
		au := &channels.Audio{Voice: voice, MIME: mt, Size: int64(max(a.Size, 0))}
		if a.DurationSecs > 0 { // Discord gives it for voice messages only
			au.Duration = time.Duration(a.DurationSecs * float64(time.Second))
		}
		what := "the voice message"
		if !voice {
			au.FileName = a.Filename
			what = fmt.Sprintf("the audio file %q", a.Filename)
		}
		au.Fetch = b.fetcher(a.URL, au.Size, what, sizelimit.Limit{What: "a voice message or audio file", Hint: "send a shorter one"})
		return au
	}
	return nil
}

// file returns the first attachment that is not audio (CH4): an image or
// a document, fetched from Discord's CDN as audio is; nil for none. Only
// the first counts: one message is one turn.
func (b *Bot) file(m *discordgo.Message) *channels.File {
	for _, a := range m.Attachments {
		if a == nil || a.URL == "" || strings.HasPrefix(mediaType(a.ContentType), "audio/") {
			continue
		}
		f := &channels.File{MIME: mediaType(a.ContentType), Size: int64(max(a.Size, 0)), FileName: a.Filename, Width: a.Width, Height: a.Height}
		f.Fetch = b.fetcher(a.URL, f.Size, fmt.Sprintf("the file %q", a.Filename), sizelimit.Limit{What: "a file", Hint: "send a smaller one"})
		return f
	}
	return nil
}

// mediaType is a content type without its parameters, in lower case:
// "audio/ogg" from "audio/ogg; codecs=opus"; "" when there is none.
func mediaType(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(ct))
	}
	return mt
}

// fetcher downloads an attachment from the link in its event (Discord's
// CDN) through the bot's HTTP client, without the bot token, which the
// CDN does not need. Errors never repeat the link: it is signed.
func (b *Bot) fetcher(link string, announced int64, what string, limit sizelimit.Limit) func(context.Context, int64) ([]byte, error) {
	return func(ctx context.Context, max int64) ([]byte, error) {
		limit.Max = max
		name := "discord: " + what
		if err := limit.Check(name, announced); err != nil {
			return nil, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, link, nil)
		if err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "discord: downloading %s: Discord gave a link that is not a URL", what)
		}
		if !b.fileHosts[req.URL.Host] || (req.URL.Scheme != "https" && req.URL.Scheme != "http") {
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "discord: %s is linked on %s, not on Discord's file host; it was not downloaded", what, req.URL.Host)
		}
		resp, err := b.s.Client.Do(req)
		if err != nil {
			return nil, downloadError(what, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, downloadStatus(what, resp.StatusCode)
		}
		if err := limit.Check(name, resp.ContentLength); err != nil {
			return nil, err
		}
		data, err := limit.ReadAll(resp.Body, name)
		if err != nil {
			if jarvisbot.ErrorCode(err) == jarvisbot.EINVALID {
				return nil, err // over the bound
			}
			return nil, downloadError(what, err)
		}
		return data, nil
	}
}

// fileHosts are the hosts files are fetched from (CH4): Discord's CDN,
// whose links a message's attachments carry, and the host of api_base when
// one is set, since a stand-in for Discord there (a test's fake) links its
// files on its own address. The CDN's host is read from discordgo, which
// keeps Discord's addresses.
func fileHosts(apiBase string) map[string]bool {
	hosts := map[string]bool{}
	if u, err := url.Parse(discordgo.EndpointCDN); err == nil {
		hosts[u.Host] = true
	}
	if u, err := url.Parse(apiBase); err == nil && apiBase != "" {
		hosts[u.Host] = true
	}
	return hosts
}

// downloadStatus explains an answer other than 200 from Discord's CDN.
func downloadStatus(what string, status int) error {
	switch {
	case status == http.StatusNotFound || status == http.StatusForbidden:
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "discord: downloading %s: Discord no longer has it (HTTP %d); its link may have expired: send it again", what, status)
	case status == http.StatusTooManyRequests || status >= 500:
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "discord: downloading %s: Discord failed (HTTP %d); try again later", what, status)
	}
	return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "discord: downloading %s: Discord answered HTTP %d", what, status)
}

// downloadError explains a download that failed on the way; a url.Error
// is unwrapped, since its text holds the signed link.
func downloadError(what string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("discord: downloading %s: %w", what, err)
	}
	return &jarvisbot.Error{Code: jarvisbot.EUNAVAILABLE, Err: err,
		Message: fmt.Sprintf("discord: downloading %s: cannot reach Discord's file server: %v; try again later", what, err)}
}

// voiceFile is the name a spoken answer is uploaded under; Discord's
// clients play an .ogg audio attachment inline.
const voiceFile = "answer.ogg"

// SendVoice sends a spoken answer as an OGG/Opus attachment, with the
// caption as the message's text and as a reply to v.ReplyTo when set.
//
// It is an attachment, not a Discord voice message: a voice message is
// uploaded through a separate attachment-upload flow to a storage host,
// needs a waveform computed from the decoded audio, and may carry no text,
// so the caption would need a message of its own. An audio/ogg
// attachment plays inline in Discord's clients all the same.
func (b *Bot) SendVoice(ctx context.Context, v channels.Voice) (string, error) {
	cid, err := channelID(v.Chat)
	if err != nil {
		return "", err
	}
	if len(v.OGG) == 0 {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "discord: nothing to send to %s: the voice answer has no audio", v.Chat)
	}
	caption := ""
	if parts := split(render(v.Caption), maxContent); len(parts) > 0 {
		caption = parts[0]
		if len(parts) > 1 {
			b.log.Warn("discord: a voice answer's caption is longer than one message; only its first part is shown", "chat", v.Chat)
		}
	}
	send := &discordgo.MessageSend{
		Content:         caption,
		AllowedMentions: noMentions(),
		Files:           []*discordgo.File{{Name: voiceFile, ContentType: "audio/ogg", Reader: bytes.NewReader(v.OGG)}},
	}
	if v.ReplyTo != "" {
		send.Reference = &discordgo.MessageReference{MessageID: v.ReplyTo, ChannelID: cid, FailIfNotExists: new(false)}
	}
	msg, err := b.s.ChannelMessageSendComplex(cid, send, discordgo.WithContext(ctx))
	if err != nil {
		return "", apiError("sending a voice answer to "+v.Chat, err)
	}
	return msg.ID, nil
}
