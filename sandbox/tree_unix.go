//go:build unix

package sandbox

import (
	"errors"
	"os/exec"
	"syscall"
)

// tree is the processes of one command: its process group, which the
// command leads in a session of its own, so that killing the group ends
// everything it started but what left the group on purpose (setsid).
// bwrap's own namespaces hold what it runs.
type tree struct{ cmd *exec.Cmd }

// newTree sets cmd up to lead a session and process group of its own
// (and, on Linux, to die with the harness) and returns its tree.
func newTree(cmd *exec.Cmd) *tree {
	cmd.SysProcAttr = procAttr()
	return &tree{cmd: cmd}
}

// started is called once the command has started.
func (t *tree) started() error { return nil }

// kill kills every process of the tree.
func (t *tree) kill() error {
	if t.cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// release frees what the tree holds once the command was waited for.
func (t *tree) release() {}
