//go:build !linux

package main

import "os"

// peakRSS is unknown here: getrusage units differ between systems.
func peakRSS(*os.ProcessState) int64 { return -1 }
