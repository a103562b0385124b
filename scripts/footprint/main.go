// Command footprint measures jarvisbot serve as issue 7 asks: connected to
// Telegram and Discord (the in-repo fakes, which speak their real
// protocols), with the shipped store and ~200 capabilities from real MCP
// tool lists (served by mcptestserver), it reports
//
//   - ready: from exec until jarvisbot logged "ready", the fake Telegram saw
//     its first getUpdates and the fake Discord gateway a READY session;
//   - idle resident memory (VmRSS, RssAnon, RssFile of /proc/PID/status),
//     after start-up and again after a turn on each platform;
//   - the peak (getrusage's ru_maxrss, what /usr/bin/time -v reports).
//
// It is a measurement, not a test: scripts/footprint.sh builds the binaries
// and runs it. Nothing leaves the machine; every address is loopback.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakediscord"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
)

func main() {
	var o options
	flag.StringVar(&o.jarvisbot, "jarvisbot", "", "the jarvisbot `BINARY` to measure (required)")
	flag.StringVar(&o.mcpServer, "mcptestserver", "", "the mcptestserver `BINARY` that serves the tool lists (required)")
	flag.StringVar(&o.catalog, "catalog", "../shared/fixtures/catalog-extended.json", "catalog snapshot `FILE` whose tool lists are served")
	flag.IntVar(&o.tools, "tools", 200, "serve whole servers of the snapshot until at least `N` tools")
	flag.IntVar(&o.runs, "runs", 5, "start jarvisbot `N` times; ready is reported as the median")
	flag.DurationVar(&o.idle, "idle", 45*time.Second, "how long jarvisbot idles before its memory is read: long enough for a Telegram long poll (30s), a Discord heartbeat (41s) and the release of what start-up needed (10s)")
	flag.DurationVar(&o.settle, "settle", 0, "after the turns, also read memory once the service has been quiet this `LONG` (0: skip)")
	flag.BoolVar(&o.mappings, "mappings", false, "also list the mappings that hold 256 KiB or more")
	flag.Parse()
	if o.jarvisbot == "" || o.mcpServer == "" {
		fmt.Fprintln(os.Stderr, "footprint: -jarvisbot and -mcptestserver are required (scripts/footprint.sh sets them)")
		os.Exit(2)
	}
	r := &reporter{}
	defer r.close()
	if err := measure(o, r); err != nil {
		r.close()
		fmt.Fprintln(os.Stderr, "footprint:", err)
		os.Exit(1)
	}
}

type options struct {
	jarvisbot, mcpServer, catalog string
	tools, runs                   int
	idle, settle                  time.Duration
	mappings                      bool
}

// reporter stands in for *testing.T for the fakes: it prints what they
// object to and runs their cleanups at the end.
type reporter struct {
	mu       sync.Mutex
	cleanups []func()
}

func (r *reporter) Errorf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "footprint: fake: "+format+"\n", args...)
}

func (r *reporter) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

func (r *reporter) close() {
	r.mu.Lock()
	fs := r.cleanups
	r.cleanups = nil
	r.mu.Unlock()
	for _, f := range slices.Backward(fs) {
		f()
	}
}

const (
	telegramOwner = 42
	discordOwner  = "777"
	telegramToken = "123456:footprint-token"
)

func measure(o options, r *reporter) error {
	work, err := os.MkdirTemp("", "jarvisbot-footprint-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	env := append(os.Environ(),
		"JARVIS_DATA_DIR="+filepath.Join(work, "data"), "HOME="+filepath.Join(work, "home"),
		"JARVIS_KEYRING_BACKEND=file", "JARVIS_KEYRING_PASSWORD=footprint", "JARVIS_LOG_LEVEL=info")
	if err := os.MkdirAll(filepath.Join(work, "home"), 0o700); err != nil {
		return err
	}
	if _, err := run(env, o.jarvisbot, "init"); err != nil {
		return err
	}
	servers, tools, err := addServers(env, o, work)
	if err != nil {
		return err
	}

	tg := faketelegram.New(r, telegramToken)
	dc := fakediscord.New(r)
	// Idle as with the real services: Discord asks for a heartbeat about
	// every 41s, and Telegram's long poll (jarvisbot asks for 30s) ends
	// early only when there is news.
	dc.SetHeartbeatInterval(41250 * time.Millisecond)
	llm := fakellm.New(r)
	env = append(env,
		"TELEGRAM_BOT_TOKEN="+telegramToken, "JARVIS_TELEGRAM_API_ENDPOINT="+tg.URL+"/bot%s/%s",
		"DISCORD_BOT_TOKEN="+dc.Token(), "JARVIS_DISCORD_API_BASE="+dc.URL(),
		"JARVIS_TELEGRAM_OWNERS="+strconv.Itoa(telegramOwner), "JARVIS_DISCORD_OWNERS="+discordOwner,
		"JARVIS_PROVIDER=anthropic", "JARVIS_MODEL=footprint-model",
		"ANTHROPIC_API_KEY=footprint-key", "ANTHROPIC_BASE_URL="+llm.AnthropicURL())

	fmt.Printf("jarvisbot serve with Telegram and Discord (fakes), %d MCP servers with %d tools, the shipped store\n", servers, tools)
	info, err := os.Stat(o.jarvisbot)
	if err == nil {
		fmt.Printf("binary:            %.1f MB\n", float64(info.Size())/1e6)
	}

	var readies []time.Duration
	for i := range o.runs {
		last := i == o.runs-1
		s, err := startServe(env, o.jarvisbot, tg, dc)
		if err != nil {
			return err
		}
		readies = append(readies, s.ready)
		if !last {
			if err := s.stop(); err != nil {
				return err
			}
			continue
		}
		slices.Sort(readies)
		fmt.Printf("ready:             %s median of %d starts (min %s, max %s); jarvisbot's own log line at %s\n",
			ms(readies[len(readies)/2]), len(readies), ms(readies[0]), ms(readies[len(readies)-1]), ms(s.logged))
		time.Sleep(o.idle)
		if err := s.report("idle after start:"); err != nil {
			return err
		}
		if o.mappings {
			s.listMappings()
		}
		if err := turns(s, tg, dc, llm); err != nil {
			s.stop()
			return err
		}
		time.Sleep(o.idle)
		if err := s.report("idle after turns:"); err != nil {
			return err
		}
		if o.settle > 0 {
			time.Sleep(o.settle)
			if err := s.report(fmt.Sprintf("quiet for %s:", o.settle)); err != nil {
				return err
			}
		}
		if err := s.stop(); err != nil {
			return err
		}
		fmt.Printf("peak (ru_maxrss):  %.1f MB\n", float64(s.maxRSS)/1024)
	}
	return nil
}

// addServers adds whole servers of the snapshot, each served by
// mcptestserver with its real tool list, until there are o.tools tools.
func addServers(env []string, o options, work string) (servers, tools int, err error) {
	data, err := os.ReadFile(o.catalog)
	if err != nil {
		return 0, 0, fmt.Errorf("the tool lists come from a catalog snapshot: %w", err)
	}
	var snap struct {
		Servers []struct {
			Name  string            `json:"name"`
			Tools []json.RawMessage `json:"tools"`
		} `json:"mcp_servers"`
	}
	if err := json.Unmarshal(data, &snap); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", o.catalog, err)
	}
	for _, s := range snap.Servers {
		if tools >= o.tools {
			break
		}
		file := filepath.Join(work, s.Name+".json")
		list, err := json.Marshal(s.Tools)
		if err != nil {
			return 0, 0, err
		}
		if err := os.WriteFile(file, list, 0o600); err != nil {
			return 0, 0, err
		}
		if _, err := run(env, o.jarvisbot, "mcp", "add", s.Name, "--", o.mcpServer, "-name", s.Name, "-tools-file", file); err != nil {
			return 0, 0, err
		}
		servers++
		tools += len(s.Tools)
	}
	if tools < o.tools {
		return 0, 0, fmt.Errorf("%s has %d tools in all, fewer than -tools %d", o.catalog, tools, o.tools)
	}
	return servers, tools, nil
}

func run(env []string, bin string, args ...string) (string, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("jarvisbot %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// serving is one running jarvisbot serve.
type serving struct {
	cmd    *exec.Cmd
	ready  time.Duration // until the log line and both platforms polled
	logged time.Duration // until the log line alone
	maxRSS int64         // KiB, after stop
	done   chan error
}

func startServe(env []string, bin string, tg *faketelegram.Server, dc *fakediscord.Server) (*serving, error) {
	// The last run's gateway session must be gone, or it would count as
	// this run's.
	for gone := time.Now().Add(5 * time.Second); dc.Connected() > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(gone) {
			return nil, errors.New("the previous jarvisbot's Discord session did not end within 5s")
		}
	}
	polls := tg.Calls("getUpdates")
	cmd := exec.Command(bin, "serve")
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	logged := make(chan time.Time, 1)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &serving{cmd: cmd, done: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			if strings.Contains(line, "jarvisbot is ready") {
				logged <- time.Now()
			} else if strings.Contains(line, "level=ERROR") || strings.Contains(line, "level=WARN") {
				fmt.Fprintln(os.Stderr, "footprint: jarvisbot:", line)
			}
		}
		io.Copy(io.Discard, stderr)
		s.done <- cmd.Wait()
	}()
	deadline := time.After(10 * time.Second)
	var logAt time.Time
	for {
		select {
		case logAt = <-logged:
		case err := <-s.done:
			return nil, fmt.Errorf("jarvisbot serve ended before it was ready: %v", err)
		case <-deadline:
			cmd.Process.Kill()
			return nil, errors.New("jarvisbot serve was not ready within 10s")
		default:
		}
		if !logAt.IsZero() && tg.Calls("getUpdates") > polls && dc.Connected() > 0 {
			s.ready, s.logged = time.Since(start), logAt.Sub(start)
			return s, nil
		}
		time.Sleep(200 * time.Microsecond)
	}
}

func (s *serving) stop() error {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
		return errors.New("jarvisbot serve did not stop within 15s of SIGTERM")
	}
	if ru, ok := s.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.maxRSS = ru.Maxrss
	}
	return nil
}

func (s *serving) report(label string) error {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return fmt.Errorf("reading jarvisbot's memory: %w", err)
	}
	kb := map[string]float64{}
	for line := range strings.Lines(string(status)) {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		if f := strings.Fields(v); len(f) == 2 && f[1] == "kB" {
			n, _ := strconv.ParseFloat(f[0], 64)
			kb[k] = n
		}
	}
	fmt.Printf("%-18s VmRSS %.1f MB (anonymous %.1f MB, program file %.1f MB)\n", label,
		kb["VmRSS"]/1024, kb["RssAnon"]/1024, kb["RssFile"]/1024)
	return nil
}

// listMappings prints the mappings of /proc/PID/smaps holding 256 KiB or
// more, to see where the memory is.
func (s *serving) listMappings() {
	smaps, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", s.cmd.Process.Pid))
	if err != nil {
		fmt.Fprintln(os.Stderr, "footprint:", err)
		return
	}
	var head string
	for line := range strings.Lines(string(smaps)) {
		f := strings.Fields(line)
		if len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":") {
			head = strings.Join(append(f[:2:2], f[5:]...), " ")
			continue
		}
		if len(f) >= 2 && f[0] == "Rss:" {
			if kb, _ := strconv.Atoi(f[1]); kb >= 256 {
				fmt.Printf("  %6d KiB  %s\n", kb, head)
			}
		}
	}
}

// turns has the owner write once on each platform and waits for the
// scripted model's answer to arrive there.
func turns(s *serving, tg *faketelegram.Server, dc *fakediscord.Server, llm *fakellm.Server) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	llm.Push(fakellm.Step{Text: "Telegram answer."})
	start := time.Now()
	tg.SendText(telegramOwner, telegramOwner, "hello from Telegram")
	if err := waitFor(ctx, func() bool {
		return slices.ContainsFunc(tg.Sent(), func(m faketelegram.Sent) bool { return strings.Contains(m.Text, "Telegram answer.") })
	}); err != nil {
		return fmt.Errorf("no answer on Telegram: %w", err)
	}
	tgTurn := time.Since(start)
	llm.Push(fakellm.Step{Text: "Discord answer."})
	start = time.Now()
	dc.SendText(dc.DMChannel(discordOwner), discordOwner, "hello from Discord")
	if err := waitFor(ctx, func() bool {
		return slices.ContainsFunc(dc.Sent(), func(m fakediscord.Message) bool { return strings.Contains(m.Content, "Discord answer.") })
	}); err != nil {
		return fmt.Errorf("no answer on Discord: %w", err)
	}
	fmt.Printf("first turns:       Telegram %s, Discord %s (message in to answer out, scripted model)\n", ms(tgTurn), ms(time.Since(start)))
	return nil
}

func waitFor(ctx context.Context, cond func() bool) error {
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
	return nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
