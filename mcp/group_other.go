//go:build !linux

package mcp

import "os"

// endGroup does nothing here: the programs a server's program started are
// killed with it when Close kills it (stopProgram), not when it ends by
// itself.
func endGroup(*os.Process) {}

// stopProgram kills the program p, which did not end when its input did,
// with what it started where the system can (killAll).
func stopProgram(p *os.Process) { killAll(p) }
