package mcphost

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/procgroup"
)

// process is a stdio server's child process. jarvisbot owns its pipes,
// rather than leaving them to the transport, so that it knows at once when
// the child exits, with which status, and what it said on stderr and on a
// stdout that should carry only JSON-RPC.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File  // our end of its stdin pipe
	stdout io.Reader // the child's stdout, seen through sniff
	stderr *tail
	sniff  *sniffer
	exited chan struct{}
	err    error // from Wait; read after exited is closed
}

// stderrTail is how much of a child's last stderr output is kept for
// error messages.
const stderrTail = 4 << 10

// start runs the child. onExit is called once it has exited, on the
// goroutine that waited for it: one goroutine per child, not two.
func start(s *Server, env []string, onExit func(*process)) (*process, error) {
	path, err := exec.LookPath(s.Command)
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "server %s: command %q not found (searched PATH=%s); install it or give its full path", s.Name, s.Command, os.Getenv("PATH"))
		}
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "server %s: command %q cannot be run: %w", s.Name, s.Command, err)
	}
	cmd := exec.Command(path, s.Args...)
	cmd.Env = env
	cmd.Dir = s.Cwd
	procgroup.Set(cmd)
	// A child that left the group (setsid) and kept stderr open must not
	// keep the exit from being noticed.
	cmd.WaitDelay = time.Second
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("server %s: stdin pipe: %w", s.Name, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("server %s: stdout pipe: %w", s.Name, err)
	}
	p := &process{cmd: cmd, stdin: inW, stderr: &tail{max: stderrTail}, exited: make(chan struct{})}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, p.stderr
	if err := cmd.Start(); err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "server %s: start %s: %w", s.Name, s.Command, err)
	}
	// The child holds its own ends now; closing ours lets stdout reach EOF
	// when the child exits.
	inR.Close()
	outW.Close()
	p.sniff = &sniffer{}
	p.stdout = io.TeeReader(outR, p.sniff)
	go func() {
		p.err = cmd.Wait()
		outR.Close()
		close(p.exited)
		onExit(p)
	}()
	return p, nil
}

// stop ends the child: stdin closed first (the polite way for a stdio
// server), then SIGTERM to its process group, then SIGKILL.
func (p *process) stop() {
	p.stdin.Close()
	select {
	case <-p.exited:
		return
	case <-time.After(500 * time.Millisecond):
	}
	procgroup.Signal(p.cmd, false)
	select {
	case <-p.exited:
		return
	case <-time.After(2 * time.Second):
	}
	procgroup.Signal(p.cmd, true)
	<-p.exited
}

// exitText describes how the child ended, with its last stderr lines.
func (p *process) exitText() string {
	var b strings.Builder
	var ee *exec.ExitError
	switch {
	case p.err == nil:
		b.WriteString("exited with status 0")
	case errors.As(p.err, &ee) && ee.ExitCode() >= 0:
		fmt.Fprintf(&b, "exited with status %d", ee.ExitCode())
	default:
		fmt.Fprintf(&b, "ended: %v", p.err)
	}
	if last := p.stderr.lines(5); last != "" {
		b.WriteString("; its last stderr lines: " + last)
	}
	return b.String()
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// ReadFrom copies what r says through a small buffer. os/exec copies a
// child's stderr with io.Copy, whose 32 KiB buffer would live as long as
// the child does; with ten servers that is 320 KiB held for a few lines.
func (t *tail) ReadFrom(r io.Reader) (int64, error) {
	buf := make([]byte, 512)
	var n int64
	for {
		k, err := r.Read(buf)
		if k > 0 {
			w, err := t.Write(buf[:k])
			n += int64(w)
			if err != nil {
				return n, err
			}
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// lines returns the last n non-empty lines, joined with " | ".
func (t *tail) lines(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, l := range strings.Split(string(t.buf), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return strings.Join(out, " | ")
}

// sniffer watches a stdio server's stdout for lines that are not JSON-RPC,
// which the transport skips silently: a server that prints a banner, or
// only prints text, is named for what it does. It reads the stream as it
// passes and keeps no copy of it: only where it is in the current line, and
// the start of the first line that was not JSON.
type sniffer struct {
	mu      sync.Mutex
	state   sniffState
	capture bool // the current line is the first bad one: its start is kept
	bad     int
	first   []byte
}

type sniffState uint8

const (
	lineStart sniffState = iota // only blanks so far on this line
	inJSON                      // the line began with '{'
	inOther                     // the line began with something else
)

// firstMax is how much of the first bad line is kept for the message.
const firstMax = 120

func (s *sniffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		if s.state == lineStart {
			p = bytes.TrimLeft(p, " \t\r")
			switch {
			case len(p) == 0:
				continue
			case p[0] == '\n':
				p = p[1:]
				continue
			case p[0] == '{':
				s.state = inJSON
			default:
				s.state = inOther
				s.bad++
				s.capture = s.bad == 1
			}
		}
		end := bytes.IndexByte(p, '\n')
		seg := p
		if end >= 0 {
			seg = p[:end]
		}
		if s.capture {
			s.first = append(s.first, seg[:min(len(seg), firstMax-len(s.first))]...)
		}
		if end < 0 {
			break
		}
		p = p[end+1:]
		s.state, s.capture = lineStart, false
	}
	return n, nil
}

// garbage returns how many non-JSON lines were seen, and the first.
func (s *sniffer) garbage() (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bad, string(bytes.TrimSpace(s.first))
}
