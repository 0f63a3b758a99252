//go:build linux

package tools

import (
	"bytes"
	"errors"
	"syscall"
	"unsafe"
)

// watchMask is what a watch of a folder reports: a name made, removed or
// moved in or out of it, or the folder itself removed or moved; and
// writes to the files in it, of which changed counts those to ignore
// files only.
const watchMask = syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO |
	syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF | syscall.IN_ONLYDIR |
	syscall.IN_MODIFY | syscall.IN_CLOSE_WRITE | syscall.IN_ATTRIB

// writeEvents are the events of a write to a file, or of a change of its
// time or mode, in a watched folder.
const writeEvents = syscall.IN_MODIFY | syscall.IN_CLOSE_WRITE | syscall.IN_ATTRIB

// watchesWrites says that changed reports writes to the ignore files of
// the folders watched, so that their times need not be looked at.
const watchesWrites = true

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

// changed reports whether a folder watched changed since the reset, or an
// ignore file in it was written (a lost event counts as a change), and
// whether any other file was written: an ignore file linked under another
// name may have been written through it. It reads without waiting, every
// event there is.
func (w *folderWatch) changed() (changed, wrote bool) {
	if w.fd < 0 {
		return true, true
	}
	var buf [4096]byte
	for {
		n, err := syscall.Read(w.fd, buf[:])
		switch {
		case errors.Is(err, syscall.EAGAIN):
			return false, wrote
		case err != nil || n <= 0:
			return true, true
		}
		c, wr := changedIn(buf[:n])
		if c {
			return true, true
		}
		wrote = wrote || wr
	}
}

// changedIn reports whether the inotify events in buf hold one that is not
// a write to a file other than an ignore file, and whether they hold a
// write to another file.
func changedIn(buf []byte) (changed, wrote bool) {
	for len(buf) >= syscall.SizeofInotifyEvent {
		ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[0]))
		end := syscall.SizeofInotifyEvent + int(ev.Len)
		if end > len(buf) {
			return true, true // cut short: take it for a change
		}
		name := string(bytes.TrimRight(buf[syscall.SizeofInotifyEvent:end], "\x00"))
		if ev.Mask&^writeEvents != 0 || name == ".gitignore" || name == "" {
			return true, true
		}
		wrote = true
		buf = buf[end:]
	}
	return len(buf) != 0, true
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
