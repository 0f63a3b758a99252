//go:build unix

package tools

import (
	"io/fs"
	"syscall"
)

// sysFileID is fileID of os.Lstat's answer.
func sysFileID(fi fs.FileInfo) (id, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return id{}, false
	}
	return id{dev: uint64(st.Dev), ino: uint64(st.Ino)}, true // Dev is 32 bits on some systems
}

// sysLinks is links of os.Lstat's answer.
func sysLinks(fi fs.FileInfo) uint64 {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 1
	}
	return uint64(st.Nlink) // Nlink is 16 or 32 bits on some systems
}
