//go:build unix && !linux

package mcp

import "syscall"

// procAttr starts a server's program in a session of its own, without the
// harness's terminal, so that the Ctrl-C that stops a turn does not stop
// the server. Close ends it.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
