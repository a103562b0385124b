package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
)

// freshPostgres makes an empty database on the test cluster
// (JARVIS_TEST_POSTGRES_URL, which scripts/test.sh sets) and returns its
// URL; the test is skipped where there is none.
func freshPostgres(t testing.TB) string {
	t.Helper()
	base := os.Getenv("JARVIS_TEST_POSTGRES_URL")
	if base == "" {
		t.Skip("JARVIS_TEST_POSTGRES_URL is not set: scripts/test.sh starts a PostgreSQL for the replicas' tests")
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connecting to the test PostgreSQL: %v", err)
	}
	defer admin.Close(ctx)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "replicas_" + hex.EncodeToString(b)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), base)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// loadPlan is a load run: chats × perChat messages through a balancer
// over the replicas, the model answering each after modelDelay; with
// kill, one replica is killed (SIGKILL) a third of the way through.
type loadPlan struct {
	replicas, chats, perChat int
	modelDelay               time.Duration
	kill                     bool
}

// loadResult is what a load run measured.
type loadResult struct {
	elapsed time.Duration
	p50     time.Duration
	p95     time.Duration
	perSec  float64
}

var loadText = regexp.MustCompile(`chat (\d+) message (\d+)`)

// runLoad runs the plan against serve replicas on one fresh PostgreSQL,
// Telegram in webhook mode behind an in-test round-robin balancer, and
// checks that every message is answered exactly once, in order per chat,
// and that none is left waiting.
func runLoad(t testing.TB, plan loadPlan) loadResult {
	t.Helper()
	dbURL := freshPostgres(t)
	e := newTestEnv(t)
	f := withModel(t, e)
	tg := withTelegram(t, e)
	e.vars["JARVIS_DATABASE_URL"] = dbURL
	e.vars["JARVIS_TELEGRAM_OWNERS"] = "42"
	e.vars["JARVIS_TELEGRAM_WEBHOOK_URL"] = "http://127.0.0.1:1/telegram" // the balancer, as Telegram knows it
	e.vars["JARVIS_LOG_LEVEL"] = "warn"

	// The model answers each message with its words, after modelDelay;
	// while gate is set it holds every answer until the gate opens.
	var gateMu sync.Mutex
	var gate chan struct{}
	f.Respond(func(r fakellm.Request) fakellm.Step {
		gateMu.Lock()
		g := gate
		gateMu.Unlock()
		step := fakellm.Step{Text: "Re: " + loadText.FindString(r.LastUser()), Delay: plan.modelDelay}
		if g != nil {
			step.Delay, step.Release = 0, g
		}
		return step
	})

	addrs := make([]string, plan.replicas)
	procs := make([]*proc, plan.replicas)
	for i := range procs {
		addrs[i] = freeAddr(t)
		procs[i] = startProc(t, e.replica(map[string]string{"JARVIS_TELEGRAM_WEBHOOK_LISTEN": addrs[i]}), nil, "serve")
	}
	for i, p := range procs {
		waitFor(t, fmt.Sprintf("replica %d to be ready", i), func() (bool, any) {
			return strings.Contains(p.out.String(), "jarvisbot is ready"), p.out.String()
		})
	}
	_, secret := tg.Webhook()

	// The balancer: round robin over the replicas, the next one when a
	// replica does not answer 200 (a dead one refuses the connection), as
	// a balancer with retries does.
	var next atomic.Int64
	post := func(update int) time.Time {
		for try := 0; ; try++ {
			r := int(next.Add(1)) % len(addrs)
			at := time.Now()
			status, err := tg.Post("http://"+addrs[r]+"/telegram", secret, update)
			if err == nil && status == http.StatusOK {
				return at
			}
			if try > 50*len(addrs) {
				t.Errorf("update %d: no replica took it (last: status %d, %v)", update, status, err)
				return at
			}
		}
	}

	// Each chat posts its messages in order, one after the other, as
	// Telegram delivers a chat's updates; the chats post side by side.
	// The chats are groups the owner writes in: one owner, many chats.
	total := plan.chats * plan.perChat
	posted := make(map[string]time.Time, total)
	var postedMu sync.Mutex
	var count atomic.Int64
	killAt := int64(total / 3)
	hold := make(chan struct{}) // closed once the kill is done
	if !plan.kill {
		close(hold)
	}
	killed := -1
	start := time.Now()
	var wg sync.WaitGroup
	for c := range plan.chats {
		wg.Go(func() {
			for m := range plan.perChat {
				if count.Add(1) > killAt {
					<-hold
				}
				text := fmt.Sprintf("chat %d message %d", c, m)
				id := tg.SendText(-int64(1000+c), 42, text)
				at := post(id)
				postedMu.Lock()
				posted[text] = at
				postedMu.Unlock()
			}
		})
	}
	if plan.kill {
		// A third posted: the model holds its answers, and once no reply
		// is between its sending and its message's release, one replica
		// is killed with turns of its own in flight. (A kill between a
		// reply's send and the store's record of it would send that reply
		// again after the take-over: the one window exactly-once cannot
		// close against a chat API that has no idempotent send.)
		waitFor(t, "a third of the messages to be posted", func() (bool, any) {
			postedMu.Lock()
			defer postedMu.Unlock()
			return int64(len(posted)) >= killAt, len(posted)
		})
		gateMu.Lock()
		gate = make(chan struct{})
		gateMu.Unlock()
		db, err := pgx.Connect(context.Background(), dbURL)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close(context.Background())
		testwait.For(t, time.Minute, "every reply sent to be released from the inbox", func() (bool, any) {
			postedMu.Lock()
			n := len(posted)
			postedMu.Unlock()
			var waiting int
			if err := db.QueryRow(context.Background(), `SELECT count(*) FROM inbox`).Scan(&waiting); err != nil {
				return false, err
			}
			answered := len(loadReplies(tg.Sent()))
			return answered+waiting == n, fmt.Sprintf("%d posted, %d answered, %d waiting", n, answered, waiting)
		})
		killed = plan.replicas - 1
		if err := procs[killed].cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		procs[killed].wait(t, 10*time.Second)
		gateMu.Lock()
		close(gate)
		gate = nil
		gateMu.Unlock()
		close(hold)
	}
	wg.Wait()
	testwait.For(t, 3*time.Minute, "every message to be answered", func() (bool, any) {
		got := len(loadReplies(tg.Sent()))
		return got >= total, fmt.Sprintf("%d of %d answered", got, total)
	})
	elapsed := time.Since(start)
	for i, p := range procs {
		if i != killed {
			p.stop(t, syscall.SIGTERM)
		}
	}

	// Exactly once, in order per chat.
	sent := loadReplies(tg.Sent())
	seen := map[string]int{}
	last := map[string]int{}
	var lat []time.Duration
	for _, s := range sent {
		m := loadText.FindStringSubmatch(s.Text)
		seen[m[0]]++
		if n := atoi(m[2]); n < last[m[1]] {
			t.Errorf("chat %s: message %d answered after message %d", m[1], n, last[m[1]])
		} else {
			last[m[1]] = n
		}
		if at, ok := posted[m[0]]; ok && seen[m[0]] == 1 {
			lat = append(lat, s.At.Sub(at))
		}
	}
	for c := range plan.chats {
		for m := range plan.perChat {
			text := fmt.Sprintf("chat %d message %d", c, m)
			if seen[text] != 1 {
				t.Errorf("%s answered %d times", text, seen[text])
			}
		}
	}
	db, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	var waiting int
	if err := db.QueryRow(context.Background(), `SELECT count(*) FROM inbox`).Scan(&waiting); err != nil || waiting != 0 {
		t.Errorf("left in the inbox: %d (%v)", waiting, err)
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))].Round(time.Millisecond)
	}
	return loadResult{elapsed: elapsed, p50: pct(0.50), p95: pct(0.95), perSec: float64(total) / elapsed.Seconds()}
}

// loadReplies are the replies to load messages ("Re: chat C message M").
func loadReplies(sent []faketelegram.Sent) []faketelegram.Sent {
	var out []faketelegram.Sent
	for _, s := range sent {
		if s.Method == "sendMessage" && len(s.Text) > 4 && s.Text[:4] == "Re: " && loadText.MatchString(s.Text) {
			out = append(out, s)
		}
	}
	return out
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// TestReplicasLoadST2 is issue 20's test: three replicas on one
// PostgreSQL behind a balancer, the fake Telegram in webhook mode, 200
// chats × 5 messages while one replica is killed mid-run: every message
// is answered exactly once, in order per chat, and none is left waiting.
func TestReplicasLoadST2(t *testing.T) {
	res := runLoad(t, loadPlan{replicas: 3, chats: 200, perChat: 5, modelDelay: 30 * time.Millisecond, kill: true})
	t.Logf("3 replicas, one killed: %d messages in %v (%.0f/s), latency p50 %v p95 %v", 200*5, res.elapsed.Round(time.Millisecond), res.perSec, res.p50, res.p95)
}

// BenchmarkReplicasST2 measures 200 chats × 5 messages on one and on three
// replicas (no kill), the model answering in 30 ms: messages a second and
// the latency from the webhook POST to the reply (p50, p95).
func BenchmarkReplicasST2(b *testing.B) {
	for _, n := range []int{1, 3} {
		b.Run(fmt.Sprintf("replicas=%d", n), func(b *testing.B) {
			for range b.N {
				res := runLoad(b, loadPlan{replicas: n, chats: 200, perChat: 5, modelDelay: 30 * time.Millisecond})
				b.ReportMetric(res.perSec, "msgs/s")
				b.ReportMetric(float64(res.p50.Milliseconds()), "p50-ms")
				b.ReportMetric(float64(res.p95.Milliseconds()), "p95-ms")
			}
		})
	}
}
