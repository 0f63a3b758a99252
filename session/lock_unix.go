//go:build unix

package session

import (
	"errors"
	"os"
	"syscall"
)

// lock takes an exclusive lock on f, held until f is closed (or the
// process ends, however it ends).
func lock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return ErrInUse
	}
	return err
}

// locking says whether lock keeps a second process out.
const locking = true
