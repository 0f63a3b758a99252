package main

import (
	"os"
	"syscall"
)

// peakRSS returns the peak resident set of a finished process, in bytes.
func peakRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return -1
	}
	return ru.Maxrss << 10 // Linux reports kilobytes
}
