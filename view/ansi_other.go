//go:build !windows

package view

// ANSI reports whether w, a terminal, shows ANSI escape sequences: Unix
// terminals do.
func ANSI(any) bool { return true }
