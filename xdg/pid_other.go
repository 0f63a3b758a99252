//go:build !unix && !windows

package xdg

// processGone reports false: this system cannot be asked, and a process
// taken for gone would lose its files.
func processGone(int) bool { return false }
