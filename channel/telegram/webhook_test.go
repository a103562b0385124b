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
	var secret string
	deadline := time.Now().Add(5 * time.Second)
	for secret == "" {
		var u string
		u, secret = s.Webhook()
		if secret != "" && u != public {
			t.Fatalf("webhook URL %q", u)
		}
		if time.Now().After(deadline) {
			t.Fatal("no webhook was set")
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case <-b.Ready():
	case <-time.After(5 * time.Second):
		t.Fatal("the webhook is set, but the bot is not ready")
	}
	update := `{"update_id":5,"message":{"message_id":9,"date":1,"chat":{"id":42,"type":"private"},"from":{"id":42,"is_bot":false,"first_name":"Owner"},"text":"by webhook"}}`
	post := func(secret string) int {
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
	if code := post("wrong"); code != http.StatusUnauthorized {
		t.Errorf("wrong secret: %d", code)
	}
	if code := post(""); code != http.StatusUnauthorized {
		t.Errorf("no secret: %d", code)
	}
	select {
	case m := <-rec.msgs:
		t.Fatalf("a refused request was delivered: %+v", m)
	default:
	}
	if code := post(secret); code != http.StatusOK {
		t.Errorf("right secret: %d", code)
	}
	select {
	case m := <-rec.msgs:
		if m.Text != "by webhook" || m.Chat != "telegram:42" {
			t.Errorf("delivered %+v", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the update was not delivered")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if u, _ := s.Webhook(); u != "" {
		t.Errorf("the webhook was left set: %s", u)
	}
}
