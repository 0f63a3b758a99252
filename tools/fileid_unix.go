//go:build unix

package tools

import (
	"io/fs"
	"syscall"
)

// fileID returns what names fi's file wherever it is moved: its device and
// inode, which a rename or a hard link keeps.
func fileID(fi fs.FileInfo) (id, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return id{}, false
	}
	return id{dev: uint64(st.Dev), ino: uint64(st.Ino)}, true // Dev is 32 bits on some systems
}

// links returns how many names the file fi describes has.
func links(fi fs.FileInfo) uint64 {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 1
	}
	return uint64(st.Nlink) // 16 bits on some systems
}
