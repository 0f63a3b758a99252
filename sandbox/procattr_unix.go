//go:build unix && !linux

package sandbox

import "syscall"

// procAttr starts a command in a session, and so a process group, of its
// own, without the harness's terminal. Nothing here kills it when the
// harness dies (macOS has no death signal): the harness's Close and the
// cancelling of its context do.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
