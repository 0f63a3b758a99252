//go:build unix

package sandbox

import (
	"os"
	"syscall"
)

// fileTooLarge reports whether a command ended because a program wrote a
// file past the size limit: the kernel sends SIGXFSZ, which kills it, and
// a shell whose last program was killed so exits with 128 plus the
// signal's number.
func fileTooLarge(ps *os.ProcessState) bool {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok {
		return false
	}
	return ws.Signaled() && ws.Signal() == syscall.SIGXFSZ || ws.Exited() && ws.ExitStatus() == 128+int(syscall.SIGXFSZ)
}
