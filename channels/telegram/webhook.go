package telegram

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/channels"
)

// secretHeader carries the webhook's secret token on every update POST.
const secretHeader = "X-Telegram-Bot-Api-Secret-Token"

// RunWebhook receives updates by webhook instead of long polling: it
// registers publicURL with a fresh secret token, serves POSTs on listen,
// refuses any request without the secret, and answers 200 only after the
// handler took the update (the desk stores it), so Telegram redelivers
// what was not taken. On return it removes the webhook again.
func (b *Bot) RunWebhook(ctx context.Context, h channels.Handler, listen, publicURL string) error {
	u, err := url.Parse(publicURL)
	if err != nil || u.Host == "" {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "telegram: webhook URL %q is not an https address", publicURL)
	}
	if !b.running.CompareAndSwap(false, true) {
		return jarvisbot.Errorf(jarvisbot.ECONFLICT, "telegram: the bot is already running")
	}
	defer b.running.Store(false)
	secret := rand.Text()
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "telegram: webhook listener on %s: %w", listen, err)
	}
	mux := http.NewServeMux()
	path := u.Path
	if path == "" {
		path = "/"
	}
	mux.Handle(path, b.webhook(ctx, h, secret))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	var serveErr error
	served := make(chan struct{})
	go func() {
		defer close(served)
		serveErr = srv.Serve(ln)
	}()
	defer func() {
		if err := srv.Close(); err != nil {
			b.log.Warn("telegram: closing the webhook listener", "err", err)
		}
		<-served // no goroutine outlives RunWebhook
	}()
	if err := b.setWebhook(ctx, publicURL, secret); err != nil {
		return err
	}
	b.log.Info("telegram: receiving updates by webhook", "url", publicURL, "listen", ln.Addr().String())
	b.readyOnce.Do(func() { close(b.ready) })
	// A listener that fails ends the run with its error, instead of a bot
	// that looks up and receives nothing.
	var stopped error
	select {
	case <-ctx.Done():
	case <-served:
		stopped = jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "telegram: the webhook listener on %s stopped: %w", ln.Addr(), serveErr)
	}
	dctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := b.raw(dctx, "deleteWebhook", tgbotapi.Params{}); err != nil {
		b.log.Warn("telegram: removing the webhook", "err", err)
	}
	return stopped
}

func (b *Bot) setWebhook(ctx context.Context, publicURL, secret string) error {
	p := tgbotapi.Params{"url": publicURL, "secret_token": secret}
	p.AddNonEmpty("allowed_updates", `["message","callback_query"]`)
	if _, err := b.raw(ctx, "setWebhook", p); err != nil {
		return jarvisbot.Errorf(appCode(err), "telegram: setting the webhook: %w", err)
	}
	return nil
}

// raw makes a call with parameters the library has no type for
// (secret_token is newer than v5.5.1).
func (b *Bot) raw(ctx context.Context, method string, p tgbotapi.Params) (*tgbotapi.APIResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	d := &doer{ctx: ctx, client: b.client}
	api := *b.api
	api.Client = d
	resp, err := api.MakeRequest(method, p)
	if err != nil {
		return nil, b.apiError(ctx, method, d.status, err)
	}
	return resp, nil
}

// webhook is the handler of Telegram's update POSTs.
func (b *Bot) webhook(ctx context.Context, h channels.Handler, secret string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		if subtle.ConstantTimeCompare([]byte(r.Header.Get(secretHeader)), []byte(secret)) != 1 {
			b.log.Warn("telegram: a webhook request without the secret token was refused", "from", r.RemoteAddr)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		var u tgbotapi.Update
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&u); err != nil {
			http.Error(w, "not an update", http.StatusBadRequest)
			return
		}
		if errors.Is(ctx.Err(), context.Canceled) {
			http.Error(w, "stopping", http.StatusServiceUnavailable) // Telegram sends it again
			return
		}
		b.deliver(ctx, h, u)
		w.WriteHeader(http.StatusOK)
	})
}
