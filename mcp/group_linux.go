package mcp

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// endGroup waits for the program p to end without reaping it, then kills
// what is left of its process group: the programs it started, which
// would run on, outside the sandbox, after a server that ends cleanly.
// Until p is reaped its pid, the group's id (procAttr), is no other
// program's, so the kill reaches none but those.
func endGroup(p *os.Process) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, p.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	syscall.Kill(-p.Pid, syscall.SIGKILL)
}

// stopProgram kills the program p, which did not end when its input did;
// endGroup then kills the rest of its group, before p is reaped.
func stopProgram(p *os.Process) { p.Kill() }
