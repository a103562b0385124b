package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
	"github.com/jarvisbot/jarvisbot/store/sqlstore/pgtest"
)

// loadPlan is a load run: chats × perChat messages through a balancer
// over the replicas, the model answering each after modelDelay; with
// kill, one replica is killed (SIGKILL) a third of the way through. With
// extras a skill is scheduled every 2 s during the run, and afterwards an
// approval is pressed twice at once, each press on another replica.
type loadPlan struct {
	replicas, chats, perChat int
	modelDelay               time.Duration
	kill, extras             bool
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
	dbURL := pgtest.Fresh(t, "replicas")
	e, f, tg := ownerOnTelegram(t)
	e.vars["JARVIS_DATABASE_URL"] = dbURL
	e.vars["JARVIS_TELEGRAM_WEBHOOK_URL"] = "https://127.0.0.1:1/telegram" // the balancer, as Telegram knows it

	if plan.extras {
		dir := filepath.Join(e.vars["JARVIS_DATA_DIR"], "skills", "tick")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		skill := "---\nname: tick\ndescription: A short report every two seconds.\nmetadata:\n  jarvisbot.schedule: \"@every 2s\"\n  jarvisbot.chat: telegram:42\n---\n" + tickBody + "\n"
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skill), 0o600); err != nil {
			t.Fatal(err)
		}
		e.mustJarvis(t, "", "cli", "add", "echo")
	}

	// The model answers each message with its words, after modelDelay;
	// while gate is set it holds every answer until the gate opens. A
	// scheduled tick gets its report; "run echo" gets a call of cli:echo,
	// and the call's result an answer.
	var gateMu sync.Mutex
	var gate chan struct{}
	var ticks, echoResults atomic.Int64
	f.Respond(func(r fakellm.Request) fakellm.Step {
		if n := len(r.Messages); n > 0 && len(r.Messages[n-1].ToolResultIDs) > 0 {
			echoResults.Add(1)
			return fakellm.Step{Text: "Echo done."}
		}
		if strings.Contains(r.LastUser(), "run echo") {
			return fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("cli:echo"), Input: `{"args":["once"]}`}}}
		}
		if strings.Contains(r.LastUser(), tickBody) {
			ticks.Add(1)
			return fakellm.Step{Text: "Tick report."}
		}
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
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for i, p := range procs {
			out := p.out.String()
			t.Logf("replica %d's last output:\n%s", i, out[max(0, len(out)-6000):])
		}
	})
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
				at := post(tg.SendTextUpdate(-int64(1000+c), 42, text))
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
	if plan.extras {
		var live []string
		for i, a := range addrs {
			if i != killed {
				live = append(live, a)
			}
		}
		checkApprovalOnce(t, tg, dbURL, live, secret, &echoResults)
		checkTicksOnce(t, tg, dbURL, ticks.Load())
	}
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

// tickBody is the scheduled skill's instructions, which tell its runs'
// model requests from the chats'.
const tickBody = "Write the tick report."

// checkApprovalOnce asks for cli:echo in the owner's chat, then presses
// Approve twice at once, each press posted to another live replica, as
// a double tap reaching two replicas through the balancer does: one
// decision is taken, the tool runs once and the turn answers once (C2).
func checkApprovalOnce(t testing.TB, tg *faketelegram.Server, dbURL string, live []string, secret string, echoResults *atomic.Int64) {
	t.Helper()
	if len(live) < 2 {
		t.Fatal("the approval check needs two live replicas")
	}
	if status, err := tg.Post("http://"+live[0]+"/telegram", secret, tg.SendTextUpdate(42, 42, "run echo")); err != nil || status != http.StatusOK {
		t.Fatalf("posting 'run echo': %d %v", status, err)
	}
	var msg int
	var approve string
	testwait.For(t, time.Minute, "the approval prompt", func() (bool, any) {
		for _, m := range tg.Sent() {
			if m.ChatID == 42 && strings.Contains(m.Text, "Approval needed") && len(m.Buttons) > 0 {
				msg, approve = m.MessageID, m.Buttons[0][0].Data
				return true, nil
			}
		}
		return false, len(tg.Sent())
	})
	tg.Press(42, 42, msg, approve)
	first := tg.LastUpdate()
	tg.Press(42, 42, msg, approve)
	second := tg.LastUpdate()
	var wg sync.WaitGroup
	for i, u := range []int{first, second} {
		wg.Go(func() {
			if status, err := tg.Post("http://"+live[i]+"/telegram", secret, u); err != nil || status != http.StatusOK {
				t.Errorf("posting press %d to replica %s: %d %v", i, live[i], status, err)
			}
		})
	}
	wg.Wait()
	answers := tg.WaitAnswers(t, 2, time.Minute)
	t.Logf("the two presses were answered %q and %q", answers[len(answers)-2].Text, answers[len(answers)-1].Text)
	testwait.For(t, time.Minute, "the answer after the approval", func() (bool, any) {
		return countText(tg.Sent(), 42, "Echo done.") > 0, nil
	})
	if n := countText(tg.Sent(), 42, "Echo done."); n != 1 {
		t.Errorf("the approved turn answered %d times", n)
	}
	if n := echoResults.Load(); n != 1 {
		t.Errorf("the model got cli:echo's result %d times", n)
	}
	db, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	var ran int
	if err := db.QueryRow(context.Background(), `SELECT count(*) FROM activity WHERE tool = 'cli:echo' AND outcome = 'ok'`).Scan(&ran); err != nil || ran != 1 {
		t.Errorf("cli:echo ran %d times (%v)", ran, err)
	}
	if m, ok := tg.Message(42, msg); !ok || !strings.Contains(m.Text, "Approved") {
		t.Errorf("the approval message after two presses: %+v", m)
	}
}

// checkTicksOnce checks the skill scheduled every 2 s ran once per due
// time over the run, a replica's death included (SC1): as many runs
// recorded as due times, each finished run's report sent once, and no
// more model requests than runs.
func checkTicksOnce(t testing.TB, tg *faketelegram.Server, dbURL string, ticks int64) {
	t.Helper()
	db, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	var runs, dueTimes, finished int
	err = db.QueryRow(context.Background(), `SELECT count(*), count(DISTINCT due_at), count(finished_at) FROM schedule_runs WHERE skill = 'tick'`).Scan(&runs, &dueTimes, &finished)
	if err != nil {
		t.Fatal(err)
	}
	if runs != dueTimes {
		t.Errorf("%d runs for %d due times", runs, dueTimes)
	}
	t.Logf("the skill scheduled every 2 s: %d runs for %d due times, %d finished, %d model requests", runs, dueTimes, finished, ticks)
	if finished < 3 {
		t.Errorf("only %d scheduled runs finished during the load", finished)
	}
	if ticks > int64(runs) {
		t.Errorf("%d model requests for %d scheduled runs", ticks, runs)
	}
	testwait.For(t, time.Minute, "each finished run's report", func() (bool, any) {
		return countText(tg.Sent(), 42, "Tick report.") >= finished, countText(tg.Sent(), 42, "Tick report.")
	})
	if n := countText(tg.Sent(), 42, "Tick report."); n != finished {
		t.Errorf("%d reports for %d finished runs", n, finished)
	}
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
// is answered exactly once, in order per chat, and none is left waiting;
// a skill scheduled every 2 s runs once per due time, and an approval
// pressed on two replicas at once runs its tool once.
func TestReplicasLoadST2(t *testing.T) {
	res := runLoad(t, loadPlan{replicas: 3, chats: 200, perChat: 5, modelDelay: 30 * time.Millisecond, kill: true, extras: true})
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

// TestPostgresReplicasCancelST2: the owner's /cancel reaching a replica that does
// not run the chat's turn stops the turn on the one that does. Replica a
// starts alone and begins a turn; b starts after and gets the /cancel.
func TestPostgresReplicasCancelST2(t *testing.T) {
	dbURL := pgtest.Fresh(t, "replicas")
	e, f, tg := ownerOnTelegram(t)
	e.vars["JARVIS_DATABASE_URL"] = dbURL
	e.vars["JARVIS_TELEGRAM_WEBHOOK_URL"] = "https://127.0.0.1:1/telegram"
	never := make(chan struct{}) // the model never answers: the turn runs until stopped
	defer close(never)
	f.Push(fakellm.Step{Text: "too late", Release: never})

	start := func(name string) (string, *proc) {
		addr := freeAddr(t)
		p := startProc(t, e.replica(map[string]string{"JARVIS_TELEGRAM_WEBHOOK_LISTEN": addr}), nil, "serve")
		waitFor(t, "replica "+name+" to be ready", func() (bool, any) {
			return strings.Contains(p.out.String(), "jarvisbot is ready"), p.out.String()
		})
		return addr, p
	}
	post := func(addr string, update int) {
		t.Helper()
		_, secret := tg.Webhook()
		if status, err := tg.Post("http://"+addr+"/telegram", secret, update); err != nil || status != http.StatusOK {
			t.Fatalf("posting update %d to %s: %d %v", update, addr, status, err)
		}
	}
	addrA, a := start("a")
	post(addrA, tg.SendTextUpdate(42, 42, "think about it for a long while"))
	waitFor(t, "the turn to ask the model", func() (bool, any) { return len(f.Requests()) == 1, len(f.Requests()) })
	addrB, b := start("b")
	post(addrB, tg.SendTextUpdate(42, 42, "/cancel"))
	waitFor(t, "the turn to stop", func() (bool, any) { return countText(tg.Sent(), 42, "Stopped.") == 1, tg.Sent() })
	if !strings.Contains(a.out.String(), "the owner's /cancel reached another replica") {
		t.Errorf("replica a did not say another replica's /cancel stopped its turn:\n%s", a.out.String())
	}
	if n := countText(tg.Sent(), 42, "Nothing is running"); n != 0 {
		t.Errorf("a replica said nothing runs while a turn ran:\n%s", b.out.String())
	}
	if n := countText(tg.Sent(), 42, "too late"); n != 0 {
		t.Error("the stopped turn answered")
	}
}
