// Package telegram is the Telegram channel (CH1): a bot that long-polls
// the Bot API through go-telegram-bot-api and implements channels.Channel,
// channels.Typer, channels.Commander and channels.VoiceSender.
//
// Incoming: Run calls getUpdates itself (not the library's GetUpdatesChan,
// which cannot be stopped mid-poll and sleeps through errors), passes
// messages and button presses to the handler in update order, and confirms
// what it handled before it returns, so a restart does not see it again.
// A voice note or audio file comes as the message's Audio, fetched later
// (getFile, then /file/bot<token>/<path> beside the API endpoint) only if
// the dispatcher wants it (V1).
// Outgoing: the model's Markdown becomes Telegram HTML, cut into messages
// of at most 4096 characters; the buttons go under the last one. Voice
// notes go up as OGG/Opus by sendVoice. 429 and 5xx answers are retried.
// Every request takes the caller's context, and no error carries the bot
// token.
package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/names"
	"github.com/jarvisbot/jarvisbot/internal/retry"
)

// Platform is the prefix of Telegram chats and users: "telegram:123".
const Platform = "telegram"

// Options configure a bot.
type Options struct {
	Token string // from @BotFather
	// BaseURL is where the Bot API lives, "http://host:port" (a test
	// server, a self-hosted Bot API server); the library's public endpoint
	// when empty. A full endpoint format with two %s (token, method), as
	// the config's api_endpoint has it, is taken as it is. Files (voice
	// notes) are downloaded from the same place, under /file/ beside
	// /bot<token>/, as Telegram and a self-hosted server serve them.
	BaseURL    string
	HTTPClient *http.Client // default: a client with no timeout of its own; every call has a deadline
	Logger     *slog.Logger
	// PollTimeout is how long one getUpdates waits for news; default 30s.
	PollTimeout time.Duration
	// RetryDelay is the first wait before retrying a 5xx answer, doubled
	// on each retry; default 1s. (A 429 waits what Telegram says.)
	RetryDelay time.Duration
	// Clock times the waits between retries; the wall clock when nil.
	Clock clock.Clock
	// Leases elect the one replica that long-polls (Telegram allows one
	// poller per token) when several share one store (ST2); nil polls
	// without asking, for a single process.
	Leases jarvisbot.Leases
}

// pollRole is the lease of the replica that long-polls.
const pollRole = "telegram-poll"

// Bot is a Telegram bot. It is safe for concurrent use.
type Bot struct {
	api        *tgbotapi.BotAPI // never changed after New: each call copies it
	client     *http.Client
	token      string
	files      string // the file download format: token, then file_path
	log        *slog.Logger
	poll       time.Duration
	retryDelay time.Duration
	clock      clock.Clock
	leases     jarvisbot.Leases
	running    atomic.Bool
	ready      chan struct{} // closed when the first long poll goes out (or this replica waits while another polls), or the webhook is set
	readyOnce  sync.Once
}

var (
	_ channels.Channel     = (*Bot)(nil)
	_ channels.Typer       = (*Bot)(nil)
	_ channels.Commander   = (*Bot)(nil)
	_ channels.Readier     = (*Bot)(nil)
	_ channels.VoiceSender = (*Bot)(nil)
)

// Ready is closed when Run's first long poll goes out, or when it waits
// because another replica polls, or when RunWebhook has set the webhook.
func (b *Bot) Ready() <-chan struct{} { return b.ready }

// New connects to the Bot API and checks the token (getMe).
func New(ctx context.Context, opt Options) (*Bot, error) {
	if strings.TrimSpace(opt.Token) == "" {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "telegram: no bot token: create a bot with @BotFather and store its token")
	}
	b := &Bot{client: opt.HTTPClient, token: opt.Token, log: opt.Logger, poll: opt.PollTimeout, retryDelay: opt.RetryDelay, ready: make(chan struct{}), leases: opt.Leases}
	if b.client == nil {
		b.client = &http.Client{}
	}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	if b.poll <= 0 {
		b.poll = 30 * time.Second
	}
	b.poll = max(b.poll.Round(time.Second), time.Second) // the API counts whole seconds
	if b.retryDelay <= 0 {
		b.retryDelay = time.Second
	}
	b.clock = opt.Clock
	if b.clock == nil {
		b.clock = clock.Real{}
	}
	if t := b.client.Timeout; t > 0 && t <= b.poll {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "telegram: the HTTP client's timeout (%s) must be longer than the poll timeout (%s)", t, b.poll)
	}
	endpoint, err := endpointFormat(opt.BaseURL)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	d := &doer{ctx: ctx, client: b.client}
	api, err := tgbotapi.NewBotAPIWithClient(opt.Token, endpoint, d) // calls getMe
	if err != nil {
		err = b.apiError(ctx, "getMe", d.status, err)
		if isAPIError(err, http.StatusUnauthorized, "") || isAPIError(err, http.StatusNotFound, "") {
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "telegram: the bot token was refused (%w): copy it again from @BotFather", err)
		}
		return nil, jarvisbot.Errorf(appCode(err), "telegram: cannot reach the Bot API (%w): check the network and the endpoint", err)
	}
	b.api = api
	b.files = fileFormat(endpoint)
	return b, nil
}

func endpointFormat(base string) (string, error) {
	if base == "" {
		return tgbotapi.APIEndpoint, nil
	}
	format := base
	if strings.Count(base, "%s") != 2 {
		format = strings.ReplaceAll(strings.TrimRight(base, "/"), "%", "%%") + "/bot%s/%s"
	}
	u, err := url.Parse(strings.ReplaceAll(format, "%s", "x"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "telegram: the Bot API address %q is not an http(s) URL", base)
	}
	return format, nil
}

// Name is "telegram".
func (b *Bot) Name() string { return Platform }

// Username is the bot's @name, without the @.
func (b *Bot) Username() string { return b.api.Self.UserName }

// Run long-polls until ctx ends and returns nil then. It calls h in
// update order, one call at a time, so h should hand long work off (as
// desk.Desk does). Failures are logged and retried after 1s, 2s, …
// up to 30s; a panicking handler is logged and the loop goes on.
//
// With Options.Leases, only the replica that holds the poll lease polls;
// the others wait for it and take over when its holder stops or dies. A
// lease lost stops the polling at once.
func (b *Bot) Run(ctx context.Context, h channels.Handler) error {
	if h == nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "telegram: Run needs a handler")
	}
	if !b.running.CompareAndSwap(false, true) {
		return jarvisbot.Errorf(jarvisbot.ECONFLICT, "telegram: the bot is already running: Telegram allows one poller per token")
	}
	defer b.running.Store(false)
	if b.leases == nil {
		b.pollUpdates(ctx, h, nil)
		return nil
	}
	restart := retry.New(b.clock, retry.Policy{Min: time.Second, Max: 30 * time.Second})
	for ctx.Err() == nil {
		l, ok, err := b.leases.TryLead(ctx, pollRole)
		if err == nil && !ok {
			b.log.Info("telegram: another replica polls the bot; this one waits and takes over if it stops")
			b.readyOnce.Do(func() { close(b.ready) }) // standing by is this replica's part
			l, err = b.leases.Lead(ctx, pollRole)
		}
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			wait := restart.Next()
			b.log.Warn("telegram: cannot tell which replica polls; trying again", "err", err, "retry_in", wait)
			restart.Wait(ctx, wait)
			continue
		}
		restart.Reset()
		b.log.Info("telegram: this replica polls the bot")
		b.pollUpdates(ctx, h, l.Lost())
		l.Release()
		select {
		case <-l.Lost():
			b.log.Warn("telegram: the poll lease was lost (the store connection broke); stopped polling, waiting to poll again")
		default:
		}
	}
	return nil
}

// pollUpdates long-polls until ctx ends or lost is closed. It first
// removes a webhook a webhook-mode run left, since Telegram refuses
// getUpdates while one is set: a replica that stops receiving by webhook
// leaves it to the replicas that go on, and only a poller undoes it.
func (b *Bot) pollUpdates(ctx context.Context, h channels.Handler, lost <-chan struct{}) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if lost != nil {
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			select {
			case <-lost:
				cancel()
			case <-stop:
			}
		}()
	}
	if _, err := b.raw(ctx, "deleteWebhook", tgbotapi.Params{}); err != nil && ctx.Err() == nil {
		b.log.Warn("telegram: removing a webhook before polling", "err", err)
	}
	offset, confirmed := 0, 0
	defer func() {
		// With the lease lost another replica may poll already: a confirming
		// getUpdates would cut its poll short. What is not confirmed comes
		// to it again, and the dispatcher takes each update once.
		if offset > confirmed && !channels.Closed(lost) {
			b.confirm(ctx, offset)
		}
	}()
	restart := retry.New(b.clock, retry.Policy{Min: time.Second, Max: 30 * time.Second})
	for ctx.Err() == nil {
		b.readyOnce.Do(func() { close(b.ready) })
		updates, err := b.getUpdates(ctx, offset, int(b.poll/time.Second))
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			wait := restart.Next()
			var e *apiError
			if errors.As(err, &e) && e.retryAfter > 0 {
				wait = max(wait, time.Duration(e.retryAfter)*time.Second)
			}
			msg := "telegram: getting updates failed"
			if isAPIError(err, http.StatusConflict, "") {
				msg = "telegram: another program polls this bot (or a webhook is set); only one can receive"
			}
			b.log.Warn(msg, "err", err, "retry_in", wait)
			restart.Wait(ctx, wait)
			continue
		}
		restart.Reset()
		confirmed = offset
		for _, u := range updates {
			if channels.Closed(lost) {
				break // the next poller gets the rest
			}
			if u.id < offset {
				continue
			}
			offset = u.id + 1
			if u.err != nil {
				b.log.Warn("telegram: skipping an update that cannot be read", "update", u.id, "err", u.err)
				continue
			}
			b.deliver(ctx, h, u.update)
		}
	}
}

// rawUpdate is one update of a batch, decoded on its own so that one whose
// fields do not decode is skipped instead of stalling the offset.
type rawUpdate struct {
	update
	id  int
	err error
}

func (b *Bot) getUpdates(ctx context.Context, offset, timeout int) ([]rawUpdate, error) {
	cfg := tgbotapi.UpdateConfig{Offset: offset, Timeout: timeout, AllowedUpdates: []string{"message", "callback_query"}}
	resp, err := b.request(ctx, "getUpdates", cfg, time.Duration(timeout)*time.Second+10*time.Second)
	if err != nil {
		return nil, err
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(resp.Result, &raws); err != nil {
		return nil, &apiError{method: "getUpdates", status: http.StatusOK, desc: "the answer is not a list of updates"}
	}
	out := make([]rawUpdate, 0, len(raws))
	for _, raw := range raws {
		var u rawUpdate
		var id struct {
			UpdateID int `json:"update_id"`
		}
		if err := json.Unmarshal(raw, &id); err != nil {
			continue
		}
		u.id = id.UpdateID
		u.err = json.Unmarshal(raw, &u.update)
		out = append(out, u)
	}
	return out, nil
}

// confirm tells Telegram that updates before offset are handled; Run's
// context has ended, so this call gets a second of its own.
func (b *Bot) confirm(ctx context.Context, offset int) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	cfg := tgbotapi.UpdateConfig{Offset: offset, Limit: 1}
	if _, err := b.request(ctx, "getUpdates", cfg, time.Second); err != nil {
		b.log.Warn("telegram: confirming the last updates failed; they may come again after a restart", "err", err)
	}
}

func (b *Bot) deliver(ctx context.Context, h channels.Handler, u update) {
	defer func() {
		if r := recover(); r != nil {
			b.log.Error("telegram: the handler panicked", "update", u.UpdateID, "panic", r, "stack", string(debug.Stack()))
		}
	}()
	switch {
	case u.Message != nil:
		m := u.Message
		text := m.Text
		if text == "" {
			text = m.Caption
		}
		audio := b.audio(m)
		var file *channels.File
		if audio == nil {
			file = b.file(m)
		}
		if m.From == nil || m.Chat == nil || (strings.TrimSpace(text) == "" && audio == nil && file == nil) {
			return // not a person's text, voice or file: stickers, service messages
		}
		h.HandleMessage(ctx, channels.Message{
			Chat:     id(m.Chat.ID),
			User:     id(m.From.ID),
			Name:     displayName(m.From),
			Text:     b.stripMention(text),
			ID:       strconv.Itoa(m.MessageID),
			Delivery: strconv.Itoa(u.UpdateID),
			Audio:    audio,
			File:     file,
		})
	case u.CallbackQuery != nil:
		q := u.CallbackQuery
		if q.From == nil || q.Message == nil || q.Message.Chat == nil {
			// A button on an inline-mode message: not ours. Stop its spinner.
			if err := b.answer(ctx, q.ID, ""); err != nil {
				b.log.Warn("telegram: a press on a button that is not ours keeps spinning", "err", err)
			}
			return
		}
		h.HandlePress(ctx, channels.Press{
			Chat:      id(q.Message.Chat.ID),
			User:      id(q.From.ID),
			MessageID: strconv.Itoa(q.Message.MessageID),
			Data:      q.Data,
			Delivery:  strconv.Itoa(u.UpdateID),
			Answer:    func(ctx context.Context, notice string) error { return b.answer(ctx, q.ID, notice) },
		})
	}
}

func id(n int64) string { return Platform + ":" + strconv.FormatInt(n, 10) }

func displayName(u *user) string {
	if name := strings.TrimSpace(u.FirstName + " " + u.LastName); name != "" {
		return name
	}
	if u.UserName != "" {
		return "@" + u.UserName
	}
	return strconv.FormatInt(u.ID, 10)
}

// stripMention turns "/help@thisbot args" (how groups address commands)
// into "/help args".
func (b *Bot) stripMention(text string) string {
	if !strings.HasPrefix(text, "/") || b.api.Self.UserName == "" {
		return text
	}
	word, rest, _ := strings.Cut(text, " ")
	cmd, at, ok := strings.Cut(word, "@")
	if !ok || !strings.EqualFold(at, b.api.Self.UserName) {
		return text
	}
	if rest != "" {
		return cmd + " " + rest
	}
	return cmd
}

// answer acknowledges a button press; Telegram shows at most 200
// characters of the notice.
func (b *Bot) answer(ctx context.Context, queryID, notice string) error {
	_, err := b.call(ctx, "answerCallbackQuery", tgbotapi.NewCallback(queryID, truncate(notice, 200)))
	if err != nil {
		return jarvisbot.Errorf(appCode(err), "telegram: answering a button press: %w", err)
	}
	return nil
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// Send converts m.Text to Telegram HTML, sends it in as many messages as
// it needs and returns the id of the last, which carries the buttons.
func (b *Bot) Send(ctx context.Context, m channels.Outgoing) (string, error) {
	chat, err := chatID(m.Chat)
	if err != nil {
		return "", err
	}
	markup, err := keyboard(m.Buttons)
	if err != nil {
		return "", err
	}
	var parts []string
	if m.Plain {
		parts = plainParts(m.Text)
	} else {
		parts = splitHTML(toHTML(m.Text), maxText)
	}
	if len(parts) == 0 {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "telegram: nothing to send to %s: the message is empty", m.Chat)
	}
	var last int
	for i, part := range parts {
		cfg := tgbotapi.NewMessage(chat, part)
		cfg.ParseMode = tgbotapi.ModeHTML
		cfg.DisableWebPagePreview = m.Plain
		if i == 0 && m.ReplyTo != "" {
			if id, err := strconv.Atoi(m.ReplyTo); err == nil {
				cfg.ReplyToMessageID = id
				cfg.AllowSendingWithoutReply = true // the message may be gone
			}
		}
		if i == len(parts)-1 && markup != nil {
			cfg.ReplyMarkup = markup
		}
		last, err = b.sendMessage(ctx, cfg)
		if err != nil {
			what := "a message"
			if len(parts) > 1 {
				what = fmt.Sprintf("part %d of %d of a message", i+1, len(parts))
			}
			return "", jarvisbot.Errorf(appCode(err), "telegram: sending %s to %s: %w", what, m.Chat, err)
		}
	}
	return strconv.Itoa(last), nil
}

// sendMessage sends one message and returns its id.
func (b *Bot) sendMessage(ctx context.Context, cfg tgbotapi.MessageConfig) (int, error) {
	resp, err := b.call(ctx, "sendMessage", cfg)
	if err != nil && isAPIError(err, http.StatusBadRequest, "can't parse entities") {
		// Our HTML is wrong somewhere: better plain text than nothing.
		b.log.Warn("telegram: the HTML was refused; sending plain text", "err", err)
		cfg.Text, cfg.ParseMode = visibleText(cfg.Text), ""
		resp, err = b.call(ctx, "sendMessage", cfg)
	}
	if err != nil {
		return 0, err
	}
	var msg sent
	if err := json.Unmarshal(resp.Result, &msg); err != nil {
		return 0, &apiError{method: "sendMessage", status: http.StatusOK, desc: "the answer is not a message"}
	}
	return msg.MessageID, nil
}

// Edit replaces a message's text and buttons; nil buttons remove them. A
// text too long for one message is cut short with "…". Editing to the
// same text and buttons is not an error.
func (b *Bot) Edit(ctx context.Context, chat, messageID, text string, buttons [][]channels.Button) error {
	c, err := chatID(chat)
	if err != nil {
		return err
	}
	msg, err := strconv.Atoi(messageID)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "telegram: %q is not a Telegram message id", messageID)
	}
	markup, err := keyboard(buttons)
	if err != nil {
		return err
	}
	if markup == nil {
		markup = &tgbotapi.InlineKeyboardMarkup{InlineKeyboard: [][]tgbotapi.InlineKeyboardButton{}}
	}
	parts := splitHTML(toHTML(text), maxText-1)
	if len(parts) == 0 {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "telegram: cannot edit message %s in %s to be empty", messageID, chat)
	}
	html := parts[0]
	if len(parts) > 1 {
		html += "…"
	}
	cfg := tgbotapi.NewEditMessageTextAndMarkup(c, msg, html, *markup)
	cfg.ParseMode = tgbotapi.ModeHTML
	_, err = b.call(ctx, "editMessageText", cfg)
	if err != nil && isAPIError(err, http.StatusBadRequest, "can't parse entities") {
		b.log.Warn("telegram: the HTML was refused; editing to plain text", "err", err)
		cfg.Text, cfg.ParseMode = visibleText(cfg.Text), ""
		_, err = b.call(ctx, "editMessageText", cfg)
	}
	if err == nil || isAPIError(err, http.StatusBadRequest, "message is not modified") {
		return nil
	}
	return jarvisbot.Errorf(appCode(err), "telegram: editing message %s in %s: %w", messageID, chat, err)
}

// Typing shows "typing…" in the chat for about five seconds, or until the
// next message.
func (b *Bot) Typing(ctx context.Context, chat string) error {
	c, err := chatID(chat)
	if err != nil {
		return err
	}
	if _, err := b.request(ctx, "sendChatAction", tgbotapi.NewChatAction(c, tgbotapi.ChatTyping), callTimeout); err != nil {
		return jarvisbot.Errorf(appCode(err), "telegram: showing typing in %s: %w", chat, err)
	}
	return nil
}

// commandPunct is what Telegram allows in a command's name besides
// lowercase letters and digits (names.Command).
const commandPunct = "_"

// SetCommands registers the commands shown in Telegram's "/" menu,
// replacing the ones before.
func (b *Bot) SetCommands(ctx context.Context, cmds []channels.Command) error {
	list := make([]tgbotapi.BotCommand, 0, len(cmds))
	for _, c := range cmds {
		name := strings.ToLower(strings.TrimPrefix(c.Name, "/"))
		desc := strings.TrimSpace(c.Description)
		if !names.Command(name, commandPunct) {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "telegram: command %q: a name is 1-32 letters, digits or _", c.Name)
		}
		if desc == "" || utf8.RuneCountInString(desc) > 256 {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "telegram: command %q: a description is 1-256 characters", c.Name)
		}
		list = append(list, tgbotapi.BotCommand{Command: name, Description: desc})
	}
	if _, err := b.call(ctx, "setMyCommands", tgbotapi.NewSetMyCommands(list...)); err != nil {
		return jarvisbot.Errorf(appCode(err), "telegram: registering commands: %w", err)
	}
	return nil
}

func chatID(chat string) (int64, error) {
	rest, ok := strings.CutPrefix(chat, Platform+":")
	n, err := strconv.ParseInt(rest, 10, 64)
	if !ok || err != nil || n == 0 {
		return 0, jarvisbot.Errorf(jarvisbot.EINVALID, "telegram: %q is not a Telegram chat (telegram:ID)", chat)
	}
	return n, nil
}

// maxData is Telegram's limit for callback data, in bytes.
const maxData = 64

func keyboard(rows [][]channels.Button) (*tgbotapi.InlineKeyboardMarkup, error) {
	var kb [][]tgbotapi.InlineKeyboardButton
	for _, row := range rows {
		var r []tgbotapi.InlineKeyboardButton
		for _, btn := range row {
			switch {
			case strings.TrimSpace(btn.Label) == "":
				return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "telegram: a button has no label")
			case btn.Data == "" || len(btn.Data) > maxData:
				return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "telegram: button %q: its data is %d bytes; Telegram takes 1-%d", btn.Label, len(btn.Data), maxData)
			}
			r = append(r, tgbotapi.NewInlineKeyboardButtonData(btn.Label, btn.Data))
		}
		if len(r) > 0 {
			kb = append(kb, r)
		}
	}
	if len(kb) == 0 {
		return nil, nil
	}
	return &tgbotapi.InlineKeyboardMarkup{InlineKeyboard: kb}, nil
}
