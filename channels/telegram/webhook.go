package telegram

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
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

// Webhook says where updates come by webhook.
type Webhook struct {
	URL    string // the public https address Telegram posts to (a balancer's)
	Listen string // the local address this replica serves it on
	// Listener, when set, is served instead of binding Listen: the
	// caller bound it (and put TLS on it) before anything started.
	Listener net.Listener
	// Salt is shared by every replica on one store (ST2): the secret
	// token is derived from it and the bot token, so every replica
	// accepts the POSTs the balancer sends it, and no replica stores the
	// secret.
	Salt string
}

// webhookSecret is the secret token Telegram sends with each update:
// HMAC-SHA256 keyed by the bot token over the shared salt, in base64url
// without padding (43 characters of A-Z a-z 0-9 _ -, as Telegram allows).
func webhookSecret(token, salt string) string {
	m := hmac.New(sha256.New, []byte(token))
	_, _ = m.Write([]byte("jarvisbot telegram webhook secret\x00" + salt)) // a hash.Hash never fails to write
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// RunWebhook receives updates by webhook instead of long polling: it
// registers w.URL with the secret token every replica derives alike
// (setting the same webhook again changes nothing, so each replica does
// it at start), serves POSTs on w.Listen, refuses any request without the
// secret, and answers 200 only after the handler took the update (the
// desk stores it, once however often it comes), so Telegram redelivers
// what was not taken. On return the webhook stays: the other replicas
// still receive by it. A run that long-polls removes it.
func (b *Bot) RunWebhook(ctx context.Context, h channels.Handler, w Webhook) error {
	u, err := url.Parse(w.URL)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		// Telegram posts only to https; an http:// address would carry
		// the secret token in clear.
		return jarvisbot.Errorf(jarvisbot.EINVALID, "telegram: webhook URL %q is not an https:// address: give the public https address of your TLS proxy", w.URL)
	}
	if w.Salt == "" {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "telegram: the webhook has no salt to derive its secret token from; serve reads it from the store")
	}
	if !b.running.CompareAndSwap(false, true) {
		return jarvisbot.Errorf(jarvisbot.ECONFLICT, "telegram: the bot is already running")
	}
	defer b.running.Store(false)
	secret := webhookSecret(b.token, w.Salt)
	ln := w.Listener
	if ln == nil {
		if ln, err = net.Listen("tcp", w.Listen); err != nil {
			return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "telegram: webhook listener on %s: %w", w.Listen, err)
		}
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
	if err := b.setWebhook(ctx, w.URL, secret); err != nil {
		return err
	}
	b.log.Info("telegram: receiving updates by webhook", "url", w.URL, "listen", ln.Addr().String())
	b.readyOnce.Do(func() { close(b.ready) })
	// A listener that fails ends the run with its error, instead of a bot
	// that looks up and receives nothing.
	select {
	case <-ctx.Done():
		return nil
	case <-served:
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "telegram: the webhook listener on %s stopped: %w", ln.Addr(), serveErr)
	}
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
		var u update
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
