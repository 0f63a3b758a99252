//go:build linux || darwin

package tools

import (
	"io/fs"
	"path/filepath"
	"syscall"
)

// lookAt is os.Lstat, its answer kept small (see lookInfo), read from the
// system's record without making os.Lstat's.
func lookAt(p string) (lookInfo, error) {
	var st syscall.Stat_t
	for {
		err := syscall.Lstat(p, &st)
		if err == nil {
			break
		}
		if err != syscall.EINTR {
			return lookInfo{}, &fs.PathError{Op: "lstat", Path: p, Err: err}
		}
	}
	modSec, modNsec, change := statTimes(&st)
	return lookInfo{
		name: filepath.Base(p), size: st.Size, mode: modeOf(uint32(st.Mode)),
		modSec: modSec, modNsec: modNsec, change: change,
		id: id{dev: uint64(st.Dev), ino: uint64(st.Ino)}, hasID: true, links: uint64(st.Nlink),
	}, nil
}

// modeOf returns the fs.FileMode of a file whose system mode is m, as
// os.Lstat tells it.
func modeOf(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & syscall.S_IFMT {
	case syscall.S_IFDIR:
		mode |= fs.ModeDir
	case syscall.S_IFLNK:
		mode |= fs.ModeSymlink
	case syscall.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case syscall.S_IFSOCK:
		mode |= fs.ModeSocket
	case syscall.S_IFBLK:
		mode |= fs.ModeDevice
	case syscall.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	}
	for _, bit := range [...]struct {
		sys  uint32
		mode fs.FileMode
	}{{syscall.S_ISUID, fs.ModeSetuid}, {syscall.S_ISGID, fs.ModeSetgid}, {syscall.S_ISVTX, fs.ModeSticky}} {
		if m&bit.sys != 0 {
			mode |= bit.mode
		}
	}
	return mode
}
