//go:build unix && !linux

package mcp

import (
	"os"
	"syscall"
)

// killAll kills the program p and every program it started that is still
// in its process group: p started a session of its own (procAttr), so its
// pid is its group's id. Killing p alone leaves the server that npx or uvx
// started running.
func killAll(p *os.Process) {
	syscall.Kill(-p.Pid, syscall.SIGKILL)
}
