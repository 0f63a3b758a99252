//go:build unix

package tools

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedByUser reports whether the user running the harness owns fi's file.
func ownedByUser(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
