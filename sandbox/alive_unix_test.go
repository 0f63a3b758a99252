//go:build unix && !linux

package sandbox

import (
	"errors"
	"syscall"
	"time"
)

// alive reports whether pid is still there, waiting a little for the
// kernel to deliver the kill and the orphan's new parent to reap it.
func alive(pid int) bool {
	for range 50 {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}
