package sandbox

import "syscall"

// procAttr starts a command in a session, and so a process group, of its
// own, without the harness's terminal, and has the kernel kill it when the
// harness dies.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}
