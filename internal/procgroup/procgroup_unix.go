//go:build unix

package procgroup

import (
	"os/exec"
	"syscall"
)

// Set makes cmd, once started, the leader of a new process group.
func Set(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// Signal sends SIGTERM, or SIGKILL when kill is set, to the started
// command's whole group; when there is no such group any more it signals
// the process alone. A process that already ended is not an error.
func Signal(cmd *exec.Cmd, kill bool) {
	if cmd.Process == nil {
		return
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
		_ = cmd.Process.Signal(sig)
	}
}
