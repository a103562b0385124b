package main

import (
	"context"
	"fmt"
	"maps"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// replica is the environment of another serve process on the same data
// directory and store, with its own settings (ST2).
func (e *testEnv) replica(vars map[string]string) *testEnv {
	r := &testEnv{clock: e.clock, vars: maps.Clone(e.vars)}
	maps.Copy(r.vars, vars)
	return r
}

// freeAddr is a loopback address no one listens on now.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// countText counts the messages sent to chat that contain text.
func countText(sent []faketelegram.Sent, chat int64, text string) int {
	n := 0
	for _, m := range sent {
		if m.ChatID == chat && strings.Contains(m.Text, text) {
			n++
		}
	}
	return n
}

// TestReplicasTelegramWebhookST2: two serve replicas on one store behind a
// balancer, Telegram in webhook mode. Both register the same webhook with
// the same secret, which neither generated alone; updates posted to either
// are answered once each, a copy of an update posted again to the same or
// the other replica is taken and not answered again, and a POST with a
// wrong secret is refused. A replica that stops leaves the webhook to the
// other.
func TestReplicasTelegramWebhookST2(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	e.vars["JARVIS_TELEGRAM_WEBHOOK_URL"] = "https://127.0.0.1:1/telegram" // the balancer's address, as Telegram knows it
	addrs := []string{freeAddr(t), freeAddr(t)}
	var stops []func()
	var secrets []string
	for _, addr := range addrs {
		out, stop := startServe(t, e.replica(map[string]string{"JARVIS_TELEGRAM_WEBHOOK_LISTEN": addr}))
		defer stop()
		stops = append(stops, stop)
		waitOutput(t, out, "jarvisbot is ready")
		_, secret := tg.Webhook()
		secrets = append(secrets, secret)
	}
	if secrets[0] == "" || secrets[0] != secrets[1] {
		t.Fatalf("the replicas registered different secrets: %q", secrets)
	}
	secret := secrets[0]
	post := func(replica, update int, secret string) int {
		t.Helper()
		status, err := tg.Post("http://"+addrs[replica]+"/telegram", secret, update)
		if err != nil {
			t.Fatal(err)
		}
		return status
	}
	const n = 6
	for i := range n {
		f.Push(fakellm.Step{Text: fmt.Sprintf("Answer number %d.", i)})
		tg.SendText(42, 42, fmt.Sprintf("message %d", i))
		id := tg.LastUpdate()
		// The balancer sends it to one replica, Telegram retries it there,
		// and a copy reaches the other: all are taken (200), one answered.
		for _, r := range []int{i % 2, i % 2, (i + 1) % 2} {
			if status := post(r, id, secret); status != http.StatusOK {
				t.Fatalf("update %d to replica %d: status %d", id, r, status)
			}
		}
		waitSent(t, tg, fmt.Sprintf("the answer to message %d", i), func(s []faketelegram.Sent) bool { return hasText(s, 42, fmt.Sprintf("Answer number %d.", i)) })
	}
	tg.SendText(42, 42, "from someone who guessed the address")
	if status := post(1, tg.LastUpdate(), "not-the-secret"); status != http.StatusUnauthorized {
		t.Errorf("a wrong secret: status %d, want 401", status)
	}
	if status := post(0, tg.LastUpdate(), ""); status != http.StatusUnauthorized {
		t.Errorf("no secret: status %d, want 401", status)
	}
	stops[0]()
	if u, s := tg.Webhook(); u == "" || s != secret {
		t.Errorf("a stopping replica changed the webhook the other uses: %q", u)
	}
	stops[1]()
	// Every copy was taken before its 200: a copy let in would be answered,
	// or wait in the inbox now that both replicas stopped.
	sent := tg.Sent()
	for i := range n {
		if c := countText(sent, 42, fmt.Sprintf("Answer number %d.", i)); c != 1 {
			t.Errorf("message %d answered %d times", i, c)
		}
	}
	if r := len(f.Requests()); r != n {
		t.Errorf("the model was asked %d times for %d messages", r, n)
	}
	db, err := sqlstore.Open(context.Background(), app.DBPath(mustConfig(t, e)))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if waiting, err := db.Waiting(context.Background()); err != nil || len(waiting) != 0 {
		t.Errorf("left in the inbox: %+v (%v)", waiting, err)
	}
}

// TestReplicasTelegramPollingST2: two serve processes polling one bot on
// one store: only the one holding the lease polls (Telegram sees no second
// poller), the other says it waits; killed (kill -9), the poller's lease
// ends with it and the other takes over and answers the next message.
func TestReplicasTelegramPollingST2(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	// The first polls before the second starts, so which is which is known.
	first := startProc(t, e, nil, "serve")
	waitFor(t, "the first replica to poll", func() (bool, any) {
		return strings.Contains(first.out.String(), "this replica polls the bot"), first.out.String()
	})
	second := startProc(t, e, nil, "serve")
	waitFor(t, "the second replica to wait", func() (bool, any) {
		return strings.Contains(second.out.String(), "another replica polls the bot"), second.out.String()
	})
	f.Push(fakellm.Step{Text: "Answered by the first."})
	tg.SendText(42, 42, "hello")
	waitSent(t, tg, "the first answer", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Answered by the first.") })
	if tg.Conflicts() != 0 || strings.Contains(second.out.String(), "this replica polls") {
		t.Fatalf("two replicas polled (%d getUpdates cut short)\nfirst:\n%s\nsecond:\n%s", tg.Conflicts(), first.out.String(), second.out.String())
	}
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.wait(t, 10*time.Second)
	waitFor(t, "the second replica to take over", func() (bool, any) {
		return strings.Contains(second.out.String(), "this replica polls the bot"), second.out.String()
	})
	f.Push(fakellm.Step{Text: "Answered by the second."})
	tg.SendText(42, 42, "still there?")
	waitSent(t, tg, "the answer after the take-over", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Answered by the second.") })
	second.stop(t, syscall.SIGTERM)
	if c := countText(tg.Sent(), 42, "Answered by the first."); c != 1 {
		t.Errorf("the first message was answered %d times", c)
	}
}
