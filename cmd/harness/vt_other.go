//go:build !windows

package main

// ansi reports whether w, a terminal, shows ANSI escape sequences: Unix
// terminals do.
func ansi(any) bool { return true }
