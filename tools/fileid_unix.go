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

// links returns how many names (hard links) fi's file has, or 1 where the
// system does not say.
func links(fi fs.FileInfo) uint64 {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 1
	}
	return uint64(st.Nlink) // Nlink is 16 or 32 bits on some systems
}
