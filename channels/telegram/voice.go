package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/sizelimit"
)

const (
	// downloadTimeout bounds one file download: Telegram hands bots files
	// of up to 20 MB, which a slow link needs more than callTimeout for.
	downloadTimeout = 2 * time.Minute
	// maxCaption is Telegram's limit for a caption: 1024 characters after
	// entity parsing, in UTF-16 units.
	maxCaption = 1024
	// downloadMethod names file downloads in errors and logs.
	downloadMethod = "file download"
)

// fileFormat is where files are downloaded from, given the Bot API's
// endpoint format: "/file/" goes before the path segment that holds the
// token, so "https://host/prefix/bot%s/%s" gives
// "https://host/prefix/file/bot%s/%s" (a token, then a file_path).
func fileFormat(endpoint string) string {
	i := strings.Index(endpoint, "%s")
	j := strings.LastIndex(endpoint[:i], "/")
	return endpoint[:j+1] + "file/" + endpoint[j+1:]
}

// audio is the voice note or audio file a message carries, nil for none.
func (b *Bot) audio(m *message) *channels.Audio {
	where := "message " + strconv.Itoa(m.MessageID)
	if m.Chat != nil {
		where += " in " + id(m.Chat.ID)
	}
	switch {
	case m.Voice != nil:
		v := m.Voice
		a := &channels.Audio{Voice: true, MIME: v.MimeType, Duration: time.Duration(v.Duration) * time.Second, Size: v.FileSize}
		limit := sizelimit.Limit{What: "a voice note", Hint: "a shorter one fits"}
		a.Fetch = b.fetcher(v.FileID, a.Size, "the voice note of "+where, limit)
		return a
	case m.Audio != nil:
		v := m.Audio
		a := &channels.Audio{MIME: v.MimeType, Duration: time.Duration(v.Duration) * time.Second, Size: v.FileSize, FileName: v.FileName}
		limit := sizelimit.Limit{What: "an audio file", Hint: "a shorter one fits"}
		a.Fetch = b.fetcher(v.FileID, a.Size, "the audio file of "+where, limit)
		return a
	}
	return nil
}

// fetcher is an Audio's Fetch: getFile, then a download from the file
// endpoint, refusing what is over max by what Telegram announced, by what
// getFile says, by Content-Length, or by the bytes that come.
func (b *Bot) fetcher(fileID string, announced int64, what string, limit sizelimit.Limit) func(context.Context, int64) ([]byte, error) {
	return func(ctx context.Context, max int64) ([]byte, error) {
		if max <= 0 {
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "telegram: fetching %s needs a size bound above zero", what)
		}
		limit.Max = max
		if err := limit.Check(what, announced); err != nil {
			return nil, err
		}
		resp, err := b.call(ctx, "getFile", tgbotapi.FileConfig{FileID: fileID})
		if isAPIError(err, http.StatusBadRequest, "file is too big") {
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "telegram: %s is larger than Telegram hands to bots (20 MB): %w; a shorter one fits", what, err)
		}
		if err != nil {
			return nil, jarvisbot.Errorf(appCode(err), "telegram: asking Telegram where to download %s: %w", what, err)
		}
		var f tgbotapi.File
		if err := json.Unmarshal(resp.Result, &f); err != nil || f.FilePath == "" {
			return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "telegram: Telegram named no download path for %s: try again later", what)
		}
		if err := checkFilePath(f.FilePath); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "telegram: the download path Telegram named for %s was refused: %w; nothing was downloaded", what, err)
		}
		if err := limit.Check(what, int64(f.FileSize)); err != nil {
			return nil, err
		}
		var data []byte
		err = b.retrying(ctx, downloadMethod, func() (err error) {
			data, err = b.download(ctx, f.FilePath, limit, what)
			return err
		})
		var tooLarge *sizelimit.TooLarge
		switch {
		case errors.As(err, &tooLarge):
			return nil, err
		case isAPIError(err, http.StatusNotFound, ""):
			// Telegram's own file links last an hour, and this one is fresh.
			// A self-hosted Bot API server serves no files itself: the web
			// server in front of it must serve its working directory.
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "telegram: downloading %s: %w: the Bot API endpoint does not serve the file; with a self-hosted Bot API server, have the web server in front of it serve the server's working directory under /file/", what, err)
		case err != nil:
			return nil, jarvisbot.Errorf(appCode(err), "telegram: downloading %s: %w", what, err)
		}
		return data, nil
	}
}

// maxFilePath bounds a file_path: Telegram's are short ("voice/file_12.oga").
const maxFilePath = 256

// checkFilePath refuses a file_path that could lead the download anywhere
// but to one file under the bot's own file folder: an absolute path (a
// self-hosted server in --local mode names its disk), a "." or ".."
// segment, an empty one, a backslash or a control character. The path
// comes from the Bot API endpoint, which may be a proxy or a self-hosted
// server, and the request it builds carries the bot's token (X1).
func checkFilePath(p string) error {
	switch {
	case len(p) > maxFilePath:
		return fmt.Errorf("it is longer than %d bytes", maxFilePath)
	case strings.HasPrefix(p, "/"):
		return errors.New("it is an absolute path (a self-hosted Bot API server in --local mode gives those: run it without --local)")
	case strings.ContainsAny(p, "\\"):
		return errors.New("it holds a backslash")
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return errors.New("it holds a control character")
		}
	}
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "", ".", "..":
			return fmt.Errorf("it holds the segment %q: only plain names such as voice/file_12.oga are followed", seg)
		}
	}
	return nil
}

// download GETs one file. The URL holds the token, so no error of
// net/http leaves here as it is: each becomes an apiError, scrubbed.
func (b *Bot) download(ctx context.Context, path string, limit sizelimit.Limit, what string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, downloadTimeout)
	defer cancel()
	segments := strings.Split(path, "/")
	for i, s := range segments {
		segments[i] = url.PathEscape(s)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf(b.files, b.token, strings.Join(segments, "/")), nil)
	if err != nil {
		return nil, &apiError{method: downloadMethod, desc: scrub(err.Error(), b.token)}
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return nil, b.apiError(ctx, downloadMethod, 0, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10)) // only drains for reuse: a failed drain costs a connection, nothing else
		return nil, &apiError{method: downloadMethod, status: resp.StatusCode, code: resp.StatusCode, desc: http.StatusText(resp.StatusCode)}
	}
	if err := limit.Check(what, resp.ContentLength); err != nil {
		return nil, err
	}
	data, err := limit.ReadAll(resp.Body, what)
	var tooLarge *sizelimit.TooLarge
	switch {
	case errors.As(err, &tooLarge):
		return nil, err
	case err != nil:
		e := &apiError{method: downloadMethod, desc: "the download broke off: " + scrub(err.Error(), b.token)}
		if ctx.Err() != nil {
			e.cause = ctx.Err()
		}
		return nil, e
	}
	return data, nil
}

// SendVoice sends OGG/Opus bytes as a voice note, the caption (Markdown,
// as Send takes) under it, cut to Telegram's 1024 characters.
func (b *Bot) SendVoice(ctx context.Context, v channels.Voice) (string, error) {
	chat, err := chatID(v.Chat)
	if err != nil {
		return "", err
	}
	if len(v.OGG) == 0 {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "telegram: no voice note to send to %s: the audio is empty", v.Chat)
	}
	cfg := tgbotapi.NewVoice(chat, tgbotapi.FileBytes{Name: "voice.ogg", Bytes: v.OGG})
	if parts := splitHTML(toHTML(v.Caption), maxCaption-1); len(parts) > 0 {
		cfg.Caption, cfg.ParseMode = parts[0], tgbotapi.ModeHTML
		if len(parts) > 1 {
			cfg.Caption += "…"
		}
	}
	if v.Duration > 0 {
		cfg.Duration = int((v.Duration + time.Second - 1) / time.Second) // Telegram counts whole seconds
	}
	if v.ReplyTo != "" {
		if id, err := strconv.Atoi(v.ReplyTo); err == nil {
			cfg.ReplyToMessageID = id
			cfg.AllowSendingWithoutReply = true // the message may be gone
		}
	}
	resp, err := b.call(ctx, "sendVoice", cfg)
	if err != nil && isAPIError(err, http.StatusBadRequest, "can't parse entities") {
		b.log.Warn("telegram: the caption's HTML was refused; sending it as plain text", "err", err)
		cfg.Caption, cfg.ParseMode = visibleText(cfg.Caption), ""
		resp, err = b.call(ctx, "sendVoice", cfg)
	}
	if err != nil {
		return "", jarvisbot.Errorf(appCode(err), "telegram: sending a voice note to %s: %w", v.Chat, err)
	}
	var msg sent
	if err := json.Unmarshal(resp.Result, &msg); err != nil {
		return "", jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "telegram: sending a voice note to %s: the answer is not a message", v.Chat)
	}
	return strconv.Itoa(msg.MessageID), nil
}
