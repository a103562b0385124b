package telegram

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestWebhookCH1: in webhook mode the bot registers its URL with a secret
// token, takes only POSTs that carry it, and removes the webhook when it
// stops.
func TestWebhookCH1(t *testing.T) {
	s, b := newBot(t, Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	public := "http://" + addr + "/telegram"
	rec := newRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.RunWebhook(ctx, rec, addr, public) }()
	s.Wait(t, 5*time.Second, "the webhook to be set", func() bool { _, secret := s.Webhook(); return secret != "" })
	u, secret := s.Webhook()
	if u != public {
		t.Fatalf("webhook URL %q, want %q", u, public)
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
		req, _ := http.NewRequest(http.MethodPost, public, strings.NewReader(update))
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
	if u, _ := s.Webhook(); u != "" {
		t.Errorf("the webhook was left set: %s", u)
	}
}
