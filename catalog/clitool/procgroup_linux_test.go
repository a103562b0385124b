//go:build linux

package clitool

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// spawner writes a shell script that starts a sleeping child, which keeps
// the script's stdout open, writes the child's pid to pidFile and then
// either sleeps itself or exits at once.
func spawner(t *testing.T, thenSleep bool) (Tool, string) {
	t.Helper()
	sh := tool(t, "sh")
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	body := "sleep 30 &\necho $! > " + pidFile + "\necho started\n"
	if thenSleep {
		body += "sleep 30\n"
	}
	script := filepath.Join(dir, "spawn.sh")
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	sh.Name = "spawn"
	return sh, script
}

// childPid reads the pid the script wrote.
func childPid(t *testing.T, script string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(filepath.Dir(script), "child.pid"))
	if err != nil {
		t.Fatalf("the script did not write its child's pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// running reports whether pid is a live process (a zombie waiting for a
// parent that does not reap it counts as ended).
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// waitEnded waits, with a deadline, for a process to end.
func waitEnded(t *testing.T, pid int) {
	t.Helper()
	err := testwait.Until(5*time.Second, fmt.Sprintf("the script's child %d to end after the call", pid), func() (bool, any) {
		return !running(pid), "still running"
	}, testwait.WithInterval(20*time.Millisecond))
	if err != nil {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatal(err)
	}
}

// TestDeadlineKillsProcessGroupP5: a CLI tool runs in its own process
// group. At the deadline the whole group ends, so a script's sleeping child
// neither outlives the call nor holds it on its open stdout; a script that
// exits leaving such a child gets its answer at once, and the child ends.
func TestDeadlineKillsProcessGroupP5(t *testing.T) {
	t.Run("deadline", func(t *testing.T) {
		sh, script := spawner(t, true)
		sh.Timeout = 300 * time.Millisecond
		start := time.Now()
		_, err := sh.Call(context.Background(), json.RawMessage(`{"args":["`+script+`"]}`), nil, 0)
		took := time.Since(start)
		if err == nil || !strings.Contains(err.Error(), "did not finish within 300ms") {
			t.Errorf("deadline: %v", err)
		}
		waitEnded(t, childPid(t, script))
		if took > 900*time.Millisecond {
			t.Errorf("the call took %s after a 300ms deadline: it waited for the child's stdout", took)
		}
	})
	t.Run("exit leaves a child", func(t *testing.T) {
		sh, script := spawner(t, false)
		start := time.Now()
		r, err := sh.Call(context.Background(), json.RawMessage(`{"args":["`+script+`"]}`), nil, 0)
		took := time.Since(start)
		if err != nil || r.ExitCode != 0 || !strings.Contains(r.Text, "started") {
			t.Fatalf("result %+v, %v", r, err)
		}
		waitEnded(t, childPid(t, script))
		if took > 900*time.Millisecond {
			t.Errorf("the call took %s: it waited for the child's stdout", took)
		}
	})
}
