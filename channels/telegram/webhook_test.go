package telegram

import (
	"context"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
)

// TestWebhookCH1: in webhook mode the bot registers its URL with the
// secret token derived from the shared salt, takes only POSTs that carry
// it, and leaves the webhook set when it stops, for the other replicas
// (ST2).
func TestWebhookCH1(t *testing.T) {
	s, b := newBot(t, Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	// Telegram posts to the proxy's https address; the proxy passes the
	// POST to the listener on loopback.
	public, local := "https://jarvis.example.org/telegram", "http://"+addr+"/telegram"
	rec := newRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.RunWebhook(ctx, rec, Webhook{URL: public, Listen: addr, Salt: "shared-salt"}) }()
	s.Wait(t, 5*time.Second, "the webhook to be set", func() bool { _, secret := s.Webhook(); return secret != "" })
	u, secret := s.Webhook()
	if u != public || secret != webhookSecret(testToken, "shared-salt") {
		t.Fatalf("webhook %q with secret %q, want %q with the secret derived from the salt", u, secret, public)
	}
	select {
	case <-b.Ready():
	case <-time.After(5 * time.Second):
		t.Fatal("the webhook is set, but the bot is not ready")
	}
	// Each request carries its own update, so a refused one that got
	// through anyway is told from the one let in.
	post := func(secret, text string) int {
		update := `{"update_id":5,"message":{"message_id":9,"date":1,"chat":{"id":42,"type":"private"},"from":{"id":42,"is_bot":false,"first_name":"Owner"},"text":"` + text + `"}}`
		req, _ := http.NewRequest(http.MethodPost, local, strings.NewReader(update))
		req.Header.Set("Content-Type", "application/json")
		if secret != "" {
			req.Header.Set(secretHeader, secret)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post("wrong", "with the wrong secret"); code != http.StatusUnauthorized {
		t.Errorf("wrong secret: %d", code)
	}
	if code := post("", "without a secret"); code != http.StatusUnauthorized {
		t.Errorf("no secret: %d", code)
	}
	if code := post(secret, "by webhook"); code != http.StatusOK {
		t.Errorf("right secret: %d", code)
	}
	// The 200 comes only once the handler took the update, after anything
	// the refused requests could have delivered: the first delivery must be
	// the one let in.
	select {
	case m := <-rec.msgs:
		if m.Text != "by webhook" || m.Chat != "telegram:42" {
			t.Errorf("delivered %+v, want the update sent with the secret", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the update was not delivered")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// With RunWebhook returned, nothing more can come.
	if len(rec.msgs) != 0 {
		t.Errorf("a refused request was delivered: %+v", <-rec.msgs)
	}
	if u, _ := s.Webhook(); u != public {
		t.Errorf("the webhook the other replicas use was removed: %q", u)
	}
}

// TestWebhookSecretST2: every replica derives the same secret from the bot
// token and the shared salt, in the characters Telegram allows; another
// salt or token gives another secret, and neither appears in it.
func TestWebhookSecretST2(t *testing.T) {
	a := webhookSecret(testToken, "salt-one")
	if a != webhookSecret(testToken, "salt-one") {
		t.Fatal("two derivations of one secret differ")
	}
	if a == webhookSecret(testToken, "salt-two") || a == webhookSecret("654321:other", "salt-one") {
		t.Error("another salt or token gave the same secret")
	}
	ok := regexp.MustCompile(`^[A-Za-z0-9_-]{1,256}$`)
	if !ok.MatchString(a) || strings.Contains(a, "salt") || strings.Contains(a, "secret") {
		t.Errorf("secret %q: want 1-256 of A-Z a-z 0-9 _ -, showing neither input", a)
	}
}

// TestPollingRemovesWebhookCH1: a bot that long-polls removes the webhook
// a webhook-mode run left, since Telegram refuses getUpdates while one is
// set, and then receives.
func TestPollingRemovesWebhookCH1(t *testing.T) {
	s, b := newBot(t, Options{})
	if _, err := b.raw(t.Context(), "setWebhook", map[string]string{"url": "https://example.invalid/telegram", "secret_token": "x"}); err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	run(t, b, rec)
	s.SendText(42, 42, "after the webhook")
	if m := receive(t, rec.msgs); m.Text != "after the webhook" || m.Delivery == "" {
		t.Errorf("delivered %+v, want the message with its delivery id", m)
	}
	if u, _ := s.Webhook(); u != "" || s.Conflicts() != 0 {
		t.Errorf("webhook %q left set, %d getUpdates refused", u, s.Conflicts())
	}
}

// TestWebhookRefusesHTTPURLCH1: an http:// webhook URL is refused before
// anything is registered: Telegram posts only to https, and the secret
// token would cross the network in clear.
func TestWebhookRefusesHTTPURLCH1(t *testing.T) {
	s, b := newBot(t, Options{})
	err := b.RunWebhook(t.Context(), newRecorder(), Webhook{URL: "http://jarvis.example.org/telegram", Listen: "127.0.0.1:0", Salt: "shared-salt"})
	if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "https://") {
		t.Errorf("err = %v, want EINVALID asking for an https:// address", err)
	}
	if u, _ := s.Webhook(); u != "" {
		t.Errorf("the http:// webhook %q was registered", u)
	}
}
