package tools

import (
	"io/fs"
	"syscall"
)

// changeTime returns when fi's file last changed in any way (its
// contents, its mode, its times), which no program can set back: 0 where
// the system does not say.
func changeTime(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctimespec.Nano()
	}
	return 0
}
