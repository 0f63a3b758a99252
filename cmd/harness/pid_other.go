//go:build !unix && !windows

package main

// processGone reports false: this system cannot be asked, and a process
// taken for gone would lose its files.
func processGone(int) bool { return false }
