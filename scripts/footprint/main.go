// Command footprint measures jarvisbot serve as issues 14 and 30 ask:
// connected to Telegram and Discord (the in-repo fakes, which speak their
// real protocols), with the shipped store, ~200 capabilities from real MCP
// tool lists (served by mcptestserver), the dashboard and the MCP endpoint
// for apps listening (on free loopback ports, so neither is left out), and
// a scripted model (Chat Completions by default). Each of -runs starts
// reports
//
//   - ready: from exec until jarvisbot logged "ready", the fake Telegram saw
//     its first getUpdates and the fake Discord gateway a READY session;
//   - idle: resident memory after -idle without a message: VmRSS, RssAnon
//     and RssFile of /proc/PID/status, and PSS of /proc/PID/smaps_rollup
//     (the process's fair share of pages it shares with others), and how
//     many MCP server processes jarvisbot runs then with their summed PSS
//     (serve starts a server whose tools it knows on first use, and stops
//     one unused for mcp_idle_timeout);
//   - after a turn: the same, -after (1s) after the answer of the first turn
//     reached Telegram, and again after a turn on Discord;
//   - the peak: VmHWM of /proc/PID/status, read just before jarvisbot is
//     stopped. Not getrusage's ru_maxrss (what /usr/bin/time -v reports):
//     at exec, Linux counts the high-water mark of the address space the
//     child leaves, and Go starts a child sharing its parent's, so the
//     child's ru_maxrss is at least this harness's own resident memory.
//
// With GODEBUG=gctrace=1 in its environment, jarvisbot's GC trace lines
// are shown too: how large the heap is live and at its peak.
//
// With -modules (and -symbols, the unstripped twin footprint.sh builds for
// it), a Markdown table follows of what each Go module costs: its bytes in
// the binary, what its packages' inits allocate, and its part of the
// executable's pages resident in the last run (modules.go).
//
// Figures are the median over the runs, with the range: the machine is
// shared and noisy. jarvisbot gives no memory back by force, so what is
// read is what it holds. It is a measurement, not a test:
// scripts/footprint.sh builds the binaries (the stripped one, as shipped)
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
	"net"
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
	flag.StringVar(&o.catalog, "catalog", "testdata/fixtures/catalog-extended.json", "catalog snapshot `FILE` whose tool lists are served")
	flag.IntVar(&o.tools, "tools", 200, "serve whole servers of the snapshot until at least `N` tools")
	flag.IntVar(&o.runs, "runs", 3, "measure `N` starts; every figure is the median over them")
	flag.DurationVar(&o.idle, "idle", 15*time.Second, "how long jarvisbot idles after it is ready before its idle memory is read (45s also spans a Telegram long poll, 30s, and a Discord heartbeat, 41s)")
	flag.StringVar(&o.provider, "provider", "openai", "which wire format the scripted model speaks to jarvisbot: `openai` (Chat Completions) or anthropic (Messages)")
	flag.DurationVar(&o.after, "after", time.Second, "how long after a turn's answer arrived its memory is read")
	flag.BoolVar(&o.mappings, "mappings", false, "also list, for the last run, the mappings that hold 256 KiB or more when idle")
	flag.BoolVar(&o.modules, "modules", false, "also print, as a Markdown table, what each Go module costs: binary size, init allocations and, for the last run, resident pages of the executable (needs -symbols)")
	flag.StringVar(&o.symbols, "symbols", "", "an unstripped twin `FILE` of -jarvisbot (same build without -ldflags='-s -w'), whose symbol table -modules reads")
	flag.Parse()
	if o.jarvisbot == "" || o.mcpServer == "" {
		fmt.Fprintln(os.Stderr, "footprint: -jarvisbot and -mcptestserver are required (scripts/footprint.sh sets them)")
		os.Exit(2)
	}
	if o.runs < 1 {
		fmt.Fprintln(os.Stderr, "footprint: -runs must be at least 1")
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
	idle, after                   time.Duration
	mappings, modules             bool
	provider, symbols             string
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

// platforms is the fake Telegram, Discord and model one measurement uses.
type platforms struct {
	tg  *faketelegram.Server
	dc  *fakediscord.Server
	llm *fakellm.Server
}

// run is what one start of jarvisbot serve measured.
type run struct {
	ready, logged           time.Duration
	telegramTurn, discTurn  time.Duration
	idle, afterTG, afterAll memory
	maxRSS                  int64 // KiB
	// The executable's resident pages when idle and after the first
	// turn, read for the -modules table in the last run only.
	pagesIdle, pagesAfter []residentPage
}

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
	if _, err := command(env, o.jarvisbot, "init"); err != nil {
		return err
	}
	servers, tools, err := addServers(env, o, work)
	if err != nil {
		return err
	}

	p := platforms{tg: faketelegram.New(r, telegramToken), dc: fakediscord.New(r), llm: fakellm.New(r)}
	// Idle as with the real services: Discord asks for a heartbeat about
	// every 41s, and Telegram's long poll (jarvisbot asks for 30s) ends
	// early only when there is news.
	p.dc.SetHeartbeatInterval(41250 * time.Millisecond)
	env = append(env,
		"TELEGRAM_BOT_TOKEN="+telegramToken, "JARVIS_TELEGRAM_API_ENDPOINT="+p.tg.URL+"/bot%s/%s",
		"DISCORD_BOT_TOKEN="+p.dc.Token(), "JARVIS_DISCORD_API_BASE="+p.dc.URL(),
		"JARVIS_TELEGRAM_OWNERS="+strconv.Itoa(telegramOwner), "JARVIS_DISCORD_OWNERS="+discordOwner,
		"JARVIS_MODEL=footprint-model",
		"JARVIS_WEB_LISTEN="+freeAddr(), "JARVIS_MCP_LISTEN="+freeAddr())
	switch o.provider {
	case "openai":
		env = append(env, "JARVIS_PROVIDER=openai", "OPENAI_API_KEY=footprint-key", "OPENAI_BASE_URL="+p.llm.OpenAIURL())
	case "anthropic":
		env = append(env, "JARVIS_PROVIDER=anthropic", "ANTHROPIC_API_KEY=footprint-key", "ANTHROPIC_BASE_URL="+p.llm.AnthropicURL())
	default:
		return fmt.Errorf("-provider %q: use openai or anthropic", o.provider)
	}

	var table *moduleTable
	if o.modules {
		if table, err = prepareModules(o, env); err != nil {
			return err
		}
	}

	fmt.Printf("jarvisbot serve with Telegram and Discord (fakes), %d MCP servers with %d tools, the shipped store, the dashboard and the MCP endpoint; the scripted model speaks %s\n", servers, tools, o.provider)
	if info, err := os.Stat(o.jarvisbot); err == nil {
		fmt.Printf("binary:              %.1f MB (%.1f MiB)\n", float64(info.Size())/1e6, float64(info.Size())/(1<<20))
	}
	var runs []run
	for i := range o.runs {
		rn, err := measureRun(env, o, p, i == o.runs-1)
		if err != nil {
			return err
		}
		runs = append(runs, rn)
		fmt.Fprintf(os.Stderr, "footprint: run %d of %d: ready %s, idle %s, 1s after a turn %s\n", i+1, o.runs, ms(rn.ready), rn.idle, rn.afterTG)
	}
	fmt.Printf("medians of %d runs (min-max):\n", len(runs))
	fmt.Printf("ready:               %s; jarvisbot's own log line at %s\n",
		spread(runs, func(r run) float64 { return float64(r.ready.Microseconds()) / 1000 }, "%.1f ms"),
		spread(runs, func(r run) float64 { return float64(r.logged.Microseconds()) / 1000 }, "%.1f ms"))
	printMemory("idle after start:", runs, func(r run) memory { return r.idle })
	printMemory(fmt.Sprintf("%s after a turn:", o.after), runs, func(r run) memory { return r.afterTG })
	printMemory(fmt.Sprintf("%s after 2nd turn:", o.after), runs, func(r run) memory { return r.afterAll })
	fmt.Printf("first turns:         Telegram %s, Discord %s (message in to answer out, scripted model)\n",
		spread(runs, func(r run) float64 { return float64(r.telegramTurn.Microseconds()) / 1000 }, "%.1f ms"),
		spread(runs, func(r run) float64 { return float64(r.discTurn.Microseconds()) / 1000 }, "%.1f ms"))
	fmt.Printf("peak (VmHWM):        %s\n", spread(runs, func(r run) float64 { return float64(r.maxRSS) / 1024 }, "%.1f MiB"))
	if table != nil {
		table.print(os.Stdout, runs[len(runs)-1], o.after)
	}
	return nil
}

// measureRun starts jarvisbot serve once and takes every figure of it;
// the last run also what -mappings and -modules look at.
func measureRun(env []string, o options, p platforms, last bool) (run, error) {
	s, err := startServe(env, o.jarvisbot, p.tg, p.dc)
	if err != nil {
		return run{}, err
	}
	rn := run{ready: s.ready, logged: s.logged}
	fail := func(err error) (run, error) {
		s.stop()
		return run{}, err
	}
	time.Sleep(o.idle) // the idle spell is what is measured
	if rn.idle, err = s.memory(); err != nil {
		return fail(err)
	}
	if last && o.mappings {
		s.listMappings()
	}
	if last && o.modules {
		if rn.pagesIdle, err = residentPages(s.cmd.Process.Pid); err != nil {
			return fail(err)
		}
	}
	if rn.telegramTurn, err = telegramTurn(p); err != nil {
		return fail(err)
	}
	time.Sleep(o.after) // a measurement delay: the answer has arrived
	if rn.afterTG, err = s.memory(); err != nil {
		return fail(err)
	}
	if last && o.modules {
		if rn.pagesAfter, err = residentPages(s.cmd.Process.Pid); err != nil {
			return fail(err)
		}
	}
	if rn.discTurn, err = discordTurn(p); err != nil {
		return fail(err)
	}
	time.Sleep(o.after)
	if rn.afterAll, err = s.memory(); err != nil {
		return fail(err)
	}
	if err := s.stop(); err != nil {
		return run{}, err
	}
	rn.maxRSS = s.maxRSS
	return rn, nil
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
		if _, err := command(env, o.jarvisbot, "mcp", "add", s.Name, "--", o.mcpServer, "-name", s.Name, "-tools-file", file); err != nil {
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

func command(env []string, bin string, args ...string) (string, error) {
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
	maxRSS int64         // KiB: VmHWM just before stop
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
			} else if strings.Contains(line, "level=ERROR") || strings.Contains(line, "level=WARN") || strings.HasPrefix(line, "gc ") {
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
	if status, err := kibFields(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid)); err == nil {
		s.maxRSS = int64(status["VmHWM"])
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
		return errors.New("jarvisbot serve did not stop within 15s of SIGTERM")
	}
	return nil
}

// memory is one reading of a process's resident memory, in KiB.
type memory struct {
	rss, anon, file, pss float64
	// children and childPSS are jarvisbot's child processes (the stdio
	// MCP servers it runs) and the sum of their PSS: what the owner's
	// machine pays beside jarvisbot's own figures.
	children int
	childPSS float64
}

func (m memory) String() string {
	return fmt.Sprintf("VmRSS %.1f MiB (anon %.1f, file %.1f), PSS %.1f MiB; %d MCP server processes, PSS %.1f MiB", m.rss/1024, m.anon/1024, m.file/1024, m.pss/1024, m.children, m.childPSS/1024)
}

// memory reads VmRSS, RssAnon and RssFile from /proc/PID/status and Pss
// from /proc/PID/smaps_rollup.
func (s *serving) memory() (memory, error) {
	pid := s.cmd.Process.Pid
	status, err := kibFields(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memory{}, fmt.Errorf("reading jarvisbot's memory: %w", err)
	}
	rollup, err := kibFields(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return memory{}, fmt.Errorf("reading jarvisbot's proportional memory: %w", err)
	}
	m := memory{rss: status["VmRSS"], anon: status["RssAnon"], file: status["RssFile"], pss: rollup["Pss"]}
	for _, child := range childrenOf(pid) {
		// A child that ended meanwhile is not counted.
		if r, err := kibFields(fmt.Sprintf("/proc/%d/smaps_rollup", child)); err == nil {
			m.children++
			m.childPSS += r["Pss"]
		}
	}
	return m, nil
}

// childrenOf lists the processes whose parent is pid, from /proc.
func childrenOf(pid int) []int {
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, d := range dirs {
		n, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", n))
		if err != nil {
			continue
		}
		for line := range strings.Lines(string(status)) {
			if v, ok := strings.CutPrefix(line, "PPid:"); ok {
				if ppid, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && ppid == pid {
					out = append(out, n)
				}
				break
			}
		}
	}
	return out
}

// kibFields reads the "Name: N kB" lines of a /proc file.
func kibFields(path string) (map[string]float64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	kb := map[string]float64{}
	for line := range strings.Lines(string(data)) {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		if f := strings.Fields(v); len(f) == 2 && f[1] == "kB" {
			n, err := strconv.ParseFloat(f[0], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", path, k, err)
			}
			kb[k] = n
		}
	}
	return kb, nil
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

// telegramTurn has the owner write on Telegram and returns once the
// scripted model's answer arrived there.
func telegramTurn(p platforms) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p.llm.Push(fakellm.Step{Text: "Telegram answer."})
	start := time.Now()
	n := len(p.tg.Sent())
	p.tg.SendText(telegramOwner, telegramOwner, "hello from Telegram")
	if err := waitFor(ctx, func() bool {
		return slices.ContainsFunc(p.tg.Sent()[n:], func(m faketelegram.Sent) bool { return strings.Contains(m.Text, "Telegram answer.") })
	}); err != nil {
		return 0, fmt.Errorf("no answer on Telegram: %w", err)
	}
	return time.Since(start), nil
}

// discordTurn does the same on Discord.
func discordTurn(p platforms) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p.llm.Push(fakellm.Step{Text: "Discord answer."})
	start := time.Now()
	n := len(p.dc.Sent())
	p.dc.SendText(p.dc.DMChannel(discordOwner), discordOwner, "hello from Discord")
	if err := waitFor(ctx, func() bool {
		return slices.ContainsFunc(p.dc.Sent()[n:], func(m fakediscord.Message) bool { return strings.Contains(m.Content, "Discord answer.") })
	}); err != nil {
		return 0, fmt.Errorf("no answer on Discord: %w", err)
	}
	return time.Since(start), nil
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

// printMemory prints the median and range of each memory figure.
func printMemory(label string, runs []run, of func(run) memory) {
	fig := func(f func(memory) float64) string {
		return spread(runs, func(r run) float64 { return f(of(r)) / 1024 }, "%.1f")
	}
	fmt.Printf("%-20s VmRSS %s MiB, RssAnon %s, RssFile %s, PSS %s; MCP server processes %s, their PSS %s MiB\n", label,
		fig(func(m memory) float64 { return m.rss }), fig(func(m memory) float64 { return m.anon }),
		fig(func(m memory) float64 { return m.file }), fig(func(m memory) float64 { return m.pss }),
		spread(runs, func(r run) float64 { return float64(of(r).children) }, "%.0f"),
		fig(func(m memory) float64 { return m.childPSS }))
}

// spread formats the median of a figure over the runs, with its range
// when there is more than one run.
func spread(runs []run, of func(run) float64, format string) string {
	v := make([]float64, len(runs))
	for i, r := range runs {
		v[i] = of(r)
	}
	slices.Sort(v)
	med := fmt.Sprintf(format, v[len(v)/2])
	if len(v) == 1 {
		return med
	}
	return med + " (" + fmt.Sprintf(format, v[0]) + "-" + fmt.Sprintf(format, v[len(v)-1]) + ")"
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// freeAddr is a loopback address no one listens on now.
func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "127.0.0.1:0"
	}
	defer l.Close()
	return l.Addr().String()
}
