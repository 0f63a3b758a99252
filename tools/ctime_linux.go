package tools

import (
	"io/fs"
	"syscall"
)

// sysChangeTime is changeTime of os.Lstat's answer.
func sysChangeTime(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Nano()
	}
	return 0
}

// statTimes returns st's modification time, as os.Lstat tells it, and
// its change time, as changeTime does.
func statTimes(st *syscall.Stat_t) (modSec, modNsec, change int64) {
	sec, nsec := st.Mtim.Unix()
	return sec, nsec, st.Ctim.Nano()
}
