package mcp

import "syscall"

// procAttr starts a server's program in a process group of its own, so
// that the Ctrl-C that stops a turn, which the terminal sends to the
// harness's group, does not stop the server; it is killed if the harness
// dies. It stays in the harness's session: after each command the
// sandbox kills the children of the harness in other sessions, as what
// a command left behind (sandbox's sweep).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
