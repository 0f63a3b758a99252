//go:build linux

package tools

import (
	"errors"
	"syscall"
)

// watchMask is what a watch of a folder reports: a name made, removed or
// moved in or out of it, or the folder itself removed or moved. Writes to
// the files in it are not asked for: the kernel would then mark every
// entry of the folder when the watch is added, which costs more than a
// look at the folder's times, and the ignore files that exist, the only
// files whose writes count, are few enough to look at each time.
const watchMask = syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO |
	syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF | syscall.IN_ONLYDIR

// folderWatch notices, through inotify, a change in any of the folders it
// was given since it was reset: one read that finds nothing says that
// nothing changed, however many folders there are.
type folderWatch struct {
	fd int // -1 when there is none
}

func newFolderWatch() *folderWatch { return &folderWatch{fd: -1} }

// reset forgets every folder, and reports whether folders can be watched.
func (w *folderWatch) reset() bool {
	if w.fd >= 0 {
		// Closing waits for the kernel to free every watch, which can
		// take as long as a walk: the walk need not wait.
		go syscall.Close(w.fd)
		w.fd = -1
	}
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		return false // too many watches in use by the user, for one
	}
	w.fd = fd
	return true
}

// add watches dir, and reports whether it could.
func (w *folderWatch) add(dir string) bool {
	if w.fd < 0 {
		return false
	}
	_, err := syscall.InotifyAddWatch(w.fd, dir, watchMask)
	return err == nil
}

// changed reports whether a folder watched changed since the reset: any
// event is one (a lost event counts too). It reads without waiting.
func (w *folderWatch) changed() bool {
	if w.fd < 0 {
		return true
	}
	var buf [4096]byte
	n, err := syscall.Read(w.fd, buf[:])
	return !errors.Is(err, syscall.EAGAIN) || n > 0
}

// take makes the watch of from this one's, with every folder it watches
// and every event not read yet, and leaves from without one.
func (w *folderWatch) take(from *folderWatch) {
	w.close()
	w.fd, from.fd = from.fd, -1
}

func (w *folderWatch) close() {
	if w.fd >= 0 {
		syscall.Close(w.fd)
		w.fd = -1
	}
}
